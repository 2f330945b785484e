package dev.flows.sdk.runtime;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.instruction.FlowBodyInstruction;
import dev.flows.kernel.spec.Routes;
import dev.flows.sdk.Flow;
import dev.flows.sdk.compile.FlowSource;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Finds the code for a root run's instruction: a flow class registered with this worker, or the
 * source the journal carries (compiled once per hash). A flow whose version differs from the one
 * the run started with is refused: an old run's body never replays under new code silently.
 *
 * <p>A journal-carried source runs only when this worker was given it: a flow this process started
 * ({@link #registerSource}), a {@code NAME.flow.java} under a directory of {@link
 * #acceptSourcesUnder}, or any source once {@link #acceptJournalSources} was called. Its {@link
 * #routes} say so to the claim, so a worker never claims a body it would refuse.
 */
public final class FlowResolver {
  /** Sources this process admitted or compiled to admit: a flow it started itself. */
  private static final Set<String> STARTED_HERE = ConcurrentHashMap.newKeySet();

  /** The newest version registered of each class flow: what a start by name takes. */
  private final Map<String, Flow> byName = new ConcurrentHashMap<>();

  /** Every registered class flow by its route, {@code name@version}: what a body replays. */
  private final Map<String, Flow> byRoute = new ConcurrentHashMap<>();

  private final Map<String, Flow> bySourceHash = new ConcurrentHashMap<>();
  private final List<SourceDirectories> directories = new CopyOnWriteArrayList<>();
  private volatile boolean anySource;

  /**
   * Registers a class flow at its header's version. Several versions of one name are served side by
   * side: a run replays on the version it started with, a start by name takes the newest ({@link
   * FlowVersions#newer}). Two instances at one name and version are refused.
   */
  public synchronized FlowResolver register(Flow flow) {
    Flow prior = byRoute.putIfAbsent(Lowering.classRoute(flow.header()), flow);
    if (prior != null && prior != flow) {
      throw new IllegalArgumentException(
          "two flows named " + flow.header().name() + " at version " + flow.header().version());
    }
    byName.merge(
        flow.header().name(),
        flow,
        (old, added) ->
            FlowVersions.newer(added.header().version(), old.header().version()) ? added : old);
    return this;
  }

  /** The names of the flow classes registered. */
  public Set<String> names() {
    return Set.copyOf(byName.keySet());
  }

  /** The flow class registered under {@code name}, if any. */
  public Optional<Flow> registered(String name) {
    return Optional.ofNullable(byName.get(name));
  }

  /**
   * Registers an instance of {@code type} (a child flow named by class) unless a flow of that class
   * is registered under its name already; answers the registered one.
   */
  Flow registerClass(Class<? extends Flow> type) {
    Flow flow;
    try {
      flow = type.getDeclaredConstructor().newInstance();
    } catch (ReflectiveOperationException | RuntimeException e) {
      throw new FlowsException(
          ErrorCode.FLOW_INVALID,
          "cannot instantiate flow class " + type.getName() + ": " + e,
          type.getName(),
          "give the flow class a public no-argument constructor");
    }
    Flow prior = byName.putIfAbsent(flow.header().name(), flow);
    if (prior == null) {
      byRoute.putIfAbsent(Lowering.classRoute(flow.header()), flow);
      return flow;
    }
    if (prior.getClass() != type) {
      throw new FlowsException(
          ErrorCode.FLOW_INVALID,
          "flow name "
              + flow.header().name()
              + " is taken by "
              + prior.getClass().getName()
              + ", not "
              + type.getName(),
          type.getName(),
          "give each flow class its own name");
    }
    return prior;
  }

  /**
   * Compiles the single-file flow {@code file} (once per source) and accepts it, so this worker
   * claims the runs of that source it starts.
   */
  FlowSource.Compiled compileAndAccept(Path file) {
    String source = FlowSource.read(file);
    String hash = FlowSource.hash(source);
    Flow flow =
        bySourceHash.computeIfAbsent(hash, h -> FlowSource.compile(file.toString(), source).flow());
    FlowSource.Compiled compiled =
        new FlowSource.Compiled(flow, flow.getClass().getName(), source, hash);
    STARTED_HERE.add(hash);
    return compiled;
  }

  /**
   * The {@code fileName} under the flow directories this worker was given whose header declares the
   * newest version ({@link FlowVersions#newer}; of one version, the first in path order), so the
   * files of several versions of a flow side by side start new runs on the newest. A file that does
   * not compile is passed over while another does.
   */
  Optional<Path> sourceFile(String fileName) {
    List<Path> found =
        directories.stream().flatMap(d -> d.find(fileName).stream()).distinct().toList();
    if (found.size() < 2) {
      return found.stream().findFirst();
    }
    Path newest = null;
    String newestVersion = null;
    FlowsException failed = null;
    for (Path file : found) {
      try {
        String version = compileAndAccept(file).flow().header().version();
        if (newest == null || FlowVersions.newer(version, newestVersion)) {
          newest = file;
          newestVersion = version;
        }
      } catch (FlowsException e) {
        failed = failed == null ? e : failed;
      }
    }
    if (newest == null) {
      throw failed;
    }
    return Optional.of(newest);
  }

  /** Every flow file under the flow directories this worker was given. */
  List<Path> sourceFiles() {
    return directories.stream().flatMap(d -> d.files().stream()).distinct().toList();
  }

  /** Remembers an already compiled single-file flow, so its source need not compile again. */
  public FlowResolver registerSource(FlowSource.Compiled compiled) {
    bySourceHash.put(compiled.sourceHash(), compiled.flow());
    STARTED_HERE.add(compiled.sourceHash());
    return this;
  }

  /**
   * Accepts the single-file flows under {@code dirs} (recursively, looked at again as they change).
   */
  public FlowResolver acceptSourcesUnder(List<Path> dirs) {
    if (!dirs.isEmpty()) {
      directories.add(new SourceDirectories(dirs));
    }
    return this;
  }

  /** Accepts every single-file flow source the journal carries, whoever admitted it. */
  public FlowResolver acceptJournalSources() {
    anySource = true;
    return this;
  }

  public boolean acceptsAnySource() {
    return anySource;
  }

  /** Whether this worker was given the flow source with this sha256. */
  public boolean acceptsSource(String sourceHash) {
    return anySource
        || STARTED_HERE.contains(sourceHash)
        || directories.stream().anyMatch(d -> d.hashes().contains(sourceHash));
  }

  /**
   * The routes of the flow bodies this resolver can run: each single-file flow source it was given
   * ({@code flow:source:<sha256>}) and each registered class at its version. With journal sources
   * accepted, also the bare {@code flow} route of bodies admitted before sources had routes.
   */
  public Set<String> routes() {
    Set<String> out = new HashSet<>();
    if (anySource) {
      out.add(FlowBodyInstruction.TYPE);
    }
    STARTED_HERE.forEach(h -> out.add(sourceRoute(h)));
    directories.forEach(d -> d.hashes().forEach(h -> out.add(sourceRoute(h))));
    byRoute.keySet().forEach(r -> out.add(Routes.agent(FlowBodyInstruction.TYPE, r)));
    return out;
  }

  /** Route prefixes accepted beyond {@link #routes}: every source, once journal sources are. */
  public Set<String> routePrefixes() {
    return anySource ? Set.of(SOURCE_ROUTES) : Set.of();
  }

  /** Every single-file flow body's route starts with this. */
  public static final String SOURCE_ROUTES =
      Routes.agent(FlowBodyInstruction.TYPE, FlowBodyInstruction.SOURCE_ROUTE);

  private static String sourceRoute(String hash) {
    return Routes.agent(FlowBodyInstruction.TYPE, FlowBodyInstruction.sourceRoute(hash));
  }

  public Flow resolve(FlowBodyInstruction instruction) {
    String name = instruction.flow();
    String version = instruction.version();
    Flow flow;
    if (instruction.origin() instanceof FlowBodyInstruction.Origin.SourceFlow origin) {
      String hash = origin.sourceHash();
      String source = origin.source();
      if (!FlowSource.hash(source).equals(hash)) {
        throw new FlowsException(
            ErrorCode.FLOW_INVALID,
            "the journaled source of flow " + name + " does not match its hash",
            name,
            "the journal was altered; start a new run");
      }
      if (!acceptsSource(hash)) {
        throw new FlowsException(
            ErrorCode.FLOW_NOT_FOUND,
            "this worker was not given the source of flow " + name + " (sha256 " + hash + ")",
            name,
            "run a worker with --flows DIR holding the flow file, or --accept-journal-sources");
      }
      flow =
          bySourceHash.computeIfAbsent(
              hash, h -> FlowSource.compile("journal:" + name, source).flow());
    } else {
      flow = byRoute.getOrDefault(FlowBodyInstruction.classRoute(name, version), byName.get(name));
      if (flow == null) {
        throw new FlowsException(
            ErrorCode.FLOW_NOT_FOUND,
            "this worker has no flow named " + name,
            name,
            "register the flow class with the worker (or run it as a NAME.flow.java file)");
      }
    }
    if (!flow.header().version().equals(version)) {
      throw new FlowsException(
          ErrorCode.FLOW_NOT_FOUND,
          "flow "
              + name
              + " is at version "
              + flow.header().version()
              + " here, but the run started with version "
              + version,
          name,
          "run a worker that has version " + version + ", or cancel the run and start anew");
    }
    return flow;
  }
}
