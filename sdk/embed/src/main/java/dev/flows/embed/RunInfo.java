package dev.flows.embed;

import dev.flows.sdk.RunId;
import java.time.Instant;
import java.util.Optional;

/**
 * One run as the journal sees it when it was read ({@link RunHandle#snapshot}, {@link Flows#runs}).
 *
 * @param id the run's id
 * @param flow the flow's name (the run name)
 * @param state where the run is
 * @param parent the run that called this one, for a child run
 * @param admissionKey the key it was admitted under ({@code flow:<name>:<key>} for a keyed start)
 * @param queue the queue its steps go to
 * @param createdAt when it was admitted
 * @param completedAt when it ended, once it did
 * @param completionReason why it ended ({@code succeeded}, {@code step_failed}, {@code canceled},
 *     ...), once it did
 * @param waitingReason why a ready step of it is not being claimed, as a worker that could not take
 *     it noted
 */
public record RunInfo(
    RunId id,
    String flow,
    RunState state,
    Optional<RunId> parent,
    String admissionKey,
    String queue,
    Instant createdAt,
    Optional<Instant> completedAt,
    Optional<String> completionReason,
    Optional<String> waitingReason) {}
