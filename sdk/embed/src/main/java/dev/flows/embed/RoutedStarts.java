package dev.flows.embed;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.instruction.FlowBodyInstruction;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.journal.StartedRun;
import dev.flows.sdk.runtime.FlowsEngine;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * Starts by name of a flow this instance does not host. A worker claims a flow's body by its route
 * (a class flow's {@code <name>@<version>}, a single-file flow's source hash) and runs it with the
 * servers frozen into it at its admission; a starter without the flow knows neither, so it takes
 * them from the newest root run of that flow in the journal (at the version asked for, when one
 * is): the new run is admitted as that one was, with its own input, key and queue. A flow with no
 * such run cannot be routed and is refused {@code flow_not_found}.
 */
final class RoutedStarts {
  /** How many of a flow's newest runs are looked at for one at the version asked for. */
  static final int RUNS_LOOKED_AT = 200;

  private static final int PAGE = 50;

  private RoutedStarts() {}

  static StartedRun start(
      FlowsEngine engine, DataSource db, String flow, JsonNode input, StartOptions options) {
    Optional<String> version = options.versionName();
    Like like =
        newest(engine.journal(), db, flow, version).orElseThrow(() -> unroutable(flow, version));
    return engine.admitLike(
        like.body(), input, options.idempotencyKey(), options.queueName().orElse(like.queue()));
  }

  /** A journaled run's body and queue, to admit another like it. */
  private record Like(FlowBodyInstruction body, String queue) {}

  private static Optional<Like> newest(
      Journal journal, DataSource db, String flow, Optional<String> version) {
    RunQuery query = RunQuery.all(db).named(flow);
    for (int seen = 0; seen < RUNS_LOOKED_AT; seen += PAGE) {
      List<RunInfo> page = query.list(PAGE);
      for (RunInfo info : page) {
        Optional<FlowBodyInstruction> body =
            journal.run(Boundary.ref(info.id())).flatMap(RoutedStarts::body);
        if (body.isPresent() && version.map(body.get().version()::equals).orElse(true)) {
          return Optional.of(new Like(body.get(), info.queue()));
        }
      }
      if (page.size() < PAGE) {
        return Optional.empty();
      }
      query = query.after(page.getLast());
    }
    return Optional.empty();
  }

  /** The flow body a root run runs; empty for a run that is not a flow's. */
  private static Optional<FlowBodyInstruction> body(RunSnapshot run) {
    JsonNode instruction = run.spec().path("steps").path(0).path("agent").path("instruction");
    if (!FlowBodyInstruction.TYPE.equals(instruction.path("type").asText())) {
      return Optional.empty();
    }
    return Optional.of(FlowBodyInstruction.fromJson(instruction));
  }

  private static FlowsException unroutable(String flow, Optional<String> version) {
    String named = flow + version.map(v -> "@" + v).orElse("");
    return new FlowsException(
        ErrorCode.FLOW_NOT_FOUND,
        "no flow named "
            + named
            + " is registered here, and the journal holds no run of it to route a new one by",
        "Flows.start",
        "register the flow with Flows.builder().register(flow), or start it once from a service"
            + " that hosts it");
  }
}
