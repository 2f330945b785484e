package dev.flows.sdk.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.instruction.FlowBodyInstruction;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.schedule.Calendar;
import dev.flows.kernel.schedule.Overlap;
import dev.flows.kernel.schedule.ScheduleChange;
import dev.flows.kernel.schedule.ScheduleDefinition;
import dev.flows.sdk.Flow;
import dev.flows.sdk.FlowHeader;
import dev.flows.sdk.Schedule;
import dev.flows.sdk.config.FlowsConfig;
import dev.flows.sdk.config.FlowsConfigLoader;
import java.nio.file.Path;
import java.time.ZoneId;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;

/**
 * The runs a worker starts for schedule ticks: a root run of the registered flow class the schedule
 * names (at the schedule's version, when it names one), lowered as {@code flows run} lowers it. A
 * flow that declares MCP servers is preflighted once with the nearest flows.json and its inventory
 * kept for its later ticks.
 */
public final class ScheduleTemplates {
  private final FlowResolver resolver;
  private final SdkConfig config;
  private final BiFunction<LoadedFlow, FlowsConfig, Inventory> preflight;
  private final Map<String, Inventory> inventories = new ConcurrentHashMap<>();

  ScheduleTemplates(
      FlowResolver resolver,
      SdkConfig config,
      BiFunction<LoadedFlow, FlowsConfig, Inventory> preflight) {
    this.resolver = resolver;
    this.config = config;
    this.preflight = preflight;
  }

  /** The run of a tick of {@code d}; empty when this worker lacks its flow at its version. */
  Optional<StartRun> of(ScheduleDefinition d) {
    return resolver
        .registered(d.flow())
        .filter(f -> d.version().map(v -> v.equals(f.header().version())).orElse(true))
        .map(f -> template(f, d.input()));
  }

  private StartRun template(Flow flow, JsonNode input) {
    FlowHeader h = flow.header();
    LoadedFlow loaded =
        new LoadedFlow(
            flow,
            new FlowBodyInstruction.Origin.ClassFlow(flow.getClass().getName()),
            Set.of(),
            Path.of("").toAbsolutePath());
    Inventory inventory =
        h.mcp().isEmpty()
            ? Inventory.empty()
            : inventories.computeIfAbsent(
                h.name(),
                n ->
                    preflight.apply(
                        loaded, FlowsConfigLoader.loadNearest(loaded.configSearchStart())));
    return new StartRun(
        Optional.empty(),
        "schedule-template",
        Lowering.root(h, loaded.origin(), input, inventory, config),
        Optional.empty(),
        "schedule",
        h.queue());
  }

  /**
   * Applies the schedule each registered flow's header declares: created under the flow's name, or
   * updated when the header's differs from the journal's ({@link ScheduleChange.Apply}).
   */
  void applyHeaders(Journal journal, String by) {
    for (String name : resolver.names()) {
      resolver
          .registered(name)
          .map(Flow::header)
          .ifPresent(
              h ->
                  h.schedule()
                      .ifPresent(
                          s ->
                              journal.changeSchedule(
                                  new ScheduleChange.Apply(definition(s, name, h.queue()), by))));
    }
  }

  /** The definition of the schedule a header declares: named after its flow, with input {}. */
  public static ScheduleDefinition definition(Schedule s, String flow, String queue) {
    Calendar calendar =
        s.cron()
            .<Calendar>map(Calendar::cron)
            .orElseGet(() -> Calendar.every(s.every().orElseThrow(), s.offset()));
    return ScheduleDefinition.of(flow, flow, calendar)
        .withZone(ZoneId.of(s.zone()))
        .withOverlap(Overlap.fromWire(s.overlap()))
        .withCatchUpWindow(s.catchUpWindow())
        .withJitter(s.jitter())
        .withPauseOnFailure(s.pauseOnFailure())
        .withQueue(queue);
  }
}
