package dev.flows.sdk.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.instruction.FlowBodyInstruction;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.schedule.Calendar;
import dev.flows.kernel.schedule.Exclusion;
import dev.flows.kernel.schedule.Overlap;
import dev.flows.kernel.schedule.ScheduleChange;
import dev.flows.kernel.schedule.ScheduleDefinition;
import dev.flows.sdk.Flow;
import dev.flows.sdk.FlowHeader;
import dev.flows.sdk.Schedule;
import dev.flows.sdk.compile.FlowSource;
import dev.flows.sdk.config.FlowsConfig;
import dev.flows.sdk.config.FlowsConfigLoader;
import java.nio.file.Path;
import java.time.ZoneId;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The runs a worker starts for schedule ticks: a root run of the registered flow class the schedule
 * names, or of the single-file flow of that name under the worker's flow directories (at the
 * schedule's version, when it names one), lowered as {@code flows run} lowers it. A flow that
 * declares MCP servers is preflighted once with the nearest flows.json and its inventory kept for
 * its later ticks.
 */
public final class ScheduleTemplates {
  private static final Logger LOG = LoggerFactory.getLogger(ScheduleTemplates.class);
  private final FlowResolver resolver;
  private final SdkConfig config;
  private final BiFunction<LoadedFlow, FlowsConfig, Inventory> preflight;
  private final Map<String, Inventory> inventories = new ConcurrentHashMap<>();

  /** The single-file flows with a schedule in their header, by flow name: their files. */
  private final Map<String, Path> sourceFlows = new ConcurrentHashMap<>();

  ScheduleTemplates(
      FlowResolver resolver,
      SdkConfig config,
      BiFunction<LoadedFlow, FlowsConfig, Inventory> preflight) {
    this.resolver = resolver;
    this.config = config;
    this.preflight = preflight;
  }

  /**
   * The names of the flows whose ticks this worker starts: the registered flow classes and the
   * single-file flows found by {@link #applyHeaders}.
   */
  Set<String> names() {
    Set<String> out = new HashSet<>(resolver.names());
    out.addAll(sourceFlows.keySet());
    return Set.copyOf(out);
  }

  /** The run of a tick of {@code d}; empty when this worker lacks its flow at its version. */
  Optional<StartRun> of(ScheduleDefinition d) {
    Optional<LoadedFlow> flow =
        resolver
            .registered(d.flow())
            .map(ScheduleTemplates::loadedClass)
            .or(() -> Optional.ofNullable(sourceFlows.get(d.flow())).flatMap(this::loadedSource));
    return flow.filter(
            f -> d.version().map(v -> v.equals(f.flow().header().version())).orElse(true))
        .map(f -> template(f, d.input()));
  }

  private static LoadedFlow loadedClass(Flow flow) {
    return new LoadedFlow(
        flow,
        new FlowBodyInstruction.Origin.ClassFlow(flow.getClass().getName()),
        Set.of(),
        Path.of("").toAbsolutePath());
  }

  /**
   * The single-file flow {@code file} as {@code flows run FILE} loads it, its source as the file
   * holds it now (compiled once per source); empty, and said, when it no longer compiles.
   */
  private Optional<LoadedFlow> loadedSource(Path file) {
    try {
      return Optional.of(LoadedFlow.ofSource(file, resolver.compileAndAccept(file)));
    } catch (FlowsException e) {
      LOG.warn("schedule ticks of flow file {} wait: {}", file, e.getMessage());
      return Optional.empty();
    }
  }

  private StartRun template(LoadedFlow loaded, JsonNode input) {
    FlowHeader h = loaded.flow().header();
    Inventory inventory =
        h.mcp().isEmpty()
            ? Inventory.empty()
            : inventories.computeIfAbsent(
                loaded.origin().toString(),
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
   * Applies the schedule each registered flow's header declares, and each single-file flow's under
   * the worker's flow directories: created under the flow's name, or updated when the header's
   * differs from the journal's ({@link ScheduleChange.Apply}). Only flow files whose source holds
   * {@link #SCHEDULE_CALL} are compiled for this; a class flow wins over a file of the same name,
   * and of several files of one name the one whose header declares the newest version.
   */
  void applyHeaders(Journal journal, String by) {
    for (String name : resolver.names()) {
      resolver.registered(name).map(Flow::header).ifPresent(h -> apply(journal, h, by));
    }
    Map<String, Map.Entry<Path, FlowHeader>> newest = new java.util.LinkedHashMap<>();
    for (Path file : resolver.sourceFiles()) {
      if (!declaresSchedule(file)) {
        continue;
      }
      loadedSource(file)
          .map(l -> l.flow().header())
          .filter(h -> h.schedule().isPresent() && resolver.registered(h.name()).isEmpty())
          .ifPresent(h -> newest.merge(h.name(), Map.entry(file, h), ScheduleTemplates::newer));
    }
    newest.forEach(
        (name, e) -> {
          if (sourceFlows.putIfAbsent(name, e.getKey()) == null) {
            apply(journal, e.getValue(), by);
          }
        });
  }

  /** Of two files of one flow, the one whose header declares the newer version (else the first). */
  private static Map.Entry<Path, FlowHeader> newer(
      Map.Entry<Path, FlowHeader> a, Map.Entry<Path, FlowHeader> b) {
    return FlowVersions.newer(b.getValue().version(), a.getValue().version()) ? b : a;
  }

  private static boolean declaresSchedule(Path file) {
    try {
      return FlowSource.read(file).contains(SCHEDULE_CALL);
    } catch (FlowsException e) {
      LOG.warn("flow file {} is not read for a schedule: {}", file, e.getMessage());
      return false;
    }
  }

  /** What a flow file's header calls to declare a schedule. */
  static final String SCHEDULE_CALL = ".schedule(";

  private static void apply(Journal journal, FlowHeader h, String by) {
    h.schedule()
        .ifPresent(
            s ->
                journal.changeSchedule(
                    new ScheduleChange.Apply(definition(s, h.name(), h.queue()), by)));
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
        .withExclude(s.excluded().stream().map(Exclusion::parse).toList())
        .withQueue(queue);
  }
}
