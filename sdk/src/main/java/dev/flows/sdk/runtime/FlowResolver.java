package dev.flows.sdk.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.sdk.Flow;
import dev.flows.sdk.compile.FlowSource;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Finds the code for a root run's instruction: a flow class registered with this worker, or the
 * source the journal carries (compiled once per hash). A flow whose version differs from the one
 * the run started with is refused: an old run's body never replays under new code silently.
 */
public final class FlowResolver {
  private final Map<String, Flow> byName = new ConcurrentHashMap<>();
  private final Map<String, Flow> bySourceHash = new ConcurrentHashMap<>();

  public FlowResolver register(Flow flow) {
    Flow prior = byName.putIfAbsent(flow.header().name(), flow);
    if (prior != null && prior != flow) {
      throw new IllegalArgumentException("two flows named " + flow.header().name());
    }
    return this;
  }

  /** Remembers an already compiled single-file flow, so its source need not compile again. */
  public FlowResolver registerSource(FlowSource.Compiled compiled) {
    bySourceHash.put(compiled.sourceHash(), compiled.flow());
    return this;
  }

  /**
   * The routes of the flow bodies this resolver can run: any single-file flow (its source travels
   * in the journal), and each registered class at its version.
   */
  public java.util.Set<String> routes() {
    java.util.Set<String> out = new java.util.HashSet<>();
    out.add(Lowering.FLOW_TYPE);
    byName
        .values()
        .forEach(f -> out.add(Lowering.FLOW_TYPE + ":" + Lowering.classRoute(f.header())));
    return out;
  }

  public Flow resolve(JsonNode instruction) {
    String name = instruction.path("flow").asText();
    String version = instruction.path("version").asText();
    JsonNode origin = instruction.path("origin");
    Flow flow;
    if ("source".equals(origin.path("kind").asText())) {
      String hash = origin.path("sourceHash").asText();
      String source = origin.path("source").asText();
      if (!FlowSource.hash(source).equals(hash)) {
        throw new FlowsException(
            ErrorCode.FLOW_INVALID,
            "the journaled source of flow " + name + " does not match its hash",
            name,
            "the journal was altered; start a new run");
      }
      flow =
          bySourceHash.computeIfAbsent(
              hash, h -> FlowSource.compile("journal:" + name, source).flow());
    } else {
      flow = byName.get(name);
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
