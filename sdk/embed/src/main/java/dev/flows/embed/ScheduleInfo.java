package dev.flows.embed;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.sdk.RunId;
import dev.flows.sdk.Schedule;
import java.time.Instant;
import java.util.Optional;

/**
 * One schedule as the journal holds it ({@link FlowSchedules}).
 *
 * @param name the schedule's name
 * @param flow the flow it starts (its header name)
 * @param schedule its calendar, zone, overlap policy, catch-up window, jitter and pause-on-failure
 * @param input the input of its runs
 * @param queue the queue of its runs
 * @param paused whether it is paused
 * @param nextTick the nominal time of its next calendar tick; empty once its calendar ended
 * @param pendingTicks ticks waiting their turn (buffered, triggered, backfilled)
 * @param lastRun the last run one of its ticks started
 */
public record ScheduleInfo(
    String name,
    String flow,
    Schedule schedule,
    JsonNode input,
    String queue,
    boolean paused,
    Optional<Instant> nextTick,
    int pendingTicks,
    Optional<RunId> lastRun) {}
