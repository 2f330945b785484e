package dev.flows.ops;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.RunRef;
import dev.flows.sdk.Flow;
import dev.flows.sdk.runtime.FlowResolver;
import dev.flows.sdk.runtime.LoadedFlow;
import dev.flows.sdk.runtime.ReplayChecker;
import dev.flows.sdk.runtime.ReplayVerdict;
import dev.flows.sdk.runtime.SdkConfig;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code flows replay-check FLOW [--runs active|all|RUN...]}: replays the journal of runs of the
 * flow's name against the given code, writing and sending nothing; exit 0 when every run is
 * compatible, 2 otherwise.
 */
@Command(
    name = "replay-check",
    mixinStandardHelpOptions = true,
    description =
        "Replay the journals of the flow's runs against this code before deploying it: nothing is"
            + " run, sent or written. Per run `compatible` or `diverges at position N`. Exit 0 all"
            + " compatible, 2 otherwise.")
final class ReplayCheckCommand implements Callable<Integer> {
  static final String ACTIVE = "active";
  static final String ALL = "all";

  @Parameters(
      index = "0",
      paramLabel = "FLOW",
      description = "The new code: NAME.flow.java, or a flow class; its header names the flow.")
  String flow;

  @Option(
      names = "--runs",
      arity = "1..*",
      paramLabel = "active|all|RUN",
      description =
          "Which runs of the flow: active (default; not ended), all, or run ids, oldest first.")
  List<String> runs = List.of(ACTIVE);

  private final Session s;

  ReplayCheckCommand(Session s) {
    this.s = s;
  }

  @Override
  public Integer call() {
    LoadedFlow loaded = LoadedFlow.load(flow, Path.of("").toAbsolutePath());
    Flow<?, ?> code = loaded.flow();
    String name = code.header().name();
    List<RunRef> ids = selected(name);
    Journal journal = s.commandJournal();
    ReplayChecker checker =
        new ReplayChecker(
            journal, new FlowResolver().register(code), SdkConfig.DEFAULTS, InstantSource.system());
    List<ReplayVerdict> verdicts = new ArrayList<>();
    for (RunRef id : ids) {
      verdicts.add(checker.check(id, code));
    }
    long diverging = verdicts.stream().filter(v -> v instanceof ReplayVerdict.Diverges).count();
    String summary =
        "%d run%s of flow %s: %d compatible, %d diverge"
            .formatted(
                verdicts.size(),
                verdicts.size() == 1 ? "" : "s",
                name,
                verdicts.size() - diverging,
                diverging);
    ObjectNode out = s.object();
    out.put("flow", name);
    out.put("version", code.header().version());
    ArrayNode list = out.putArray("runs");
    for (ReplayVerdict v : verdicts) {
      ObjectNode r = list.addObject().put("runId", v.run().value());
      r.put("compatible", v instanceof ReplayVerdict.Compatible);
      if (v instanceof ReplayVerdict.Diverges d) {
        r.put("position", d.position()).put("journal", d.journaled()).put("code", d.code());
      }
      r.put("verdict", v.describe());
    }
    out.put("compatible", diverging == 0);
    out.put("summary", summary);
    s.emit(
        out,
        p -> {
          verdicts.forEach(v -> p.println(v.run().value() + "  " + v.describe()));
          p.println(summary);
        });
    return diverging == 0 ? Exit.SUCCESS : Exit.REFUSED;
  }

  private List<RunRef> selected(String name) {
    if (runs.size() == 1 && (runs.getFirst().equals(ACTIVE) || runs.getFirst().equals(ALL))) {
      boolean active = runs.getFirst().equals(ACTIVE);
      return s.readyDatabase().withConnection(c -> listed(c, name, active));
    }
    if (runs.contains(ACTIVE) || runs.contains(ALL)) {
      throw new FlowsException(
          ErrorCode.INVALID_INPUT,
          "--runs takes active, all, or run ids, not a mix: " + runs,
          "--runs",
          "pass --runs active, --runs all, or --runs RUN...");
    }
    s.readyDatabase();
    return runs.stream().map(RunsCommand::runId).toList();
  }

  /** The flow's root runs, oldest first; only those not ended when {@code active}. */
  private static List<RunRef> listed(Connection c, String name, boolean active)
      throws SQLException {
    String sql =
        "SELECT run_id FROM flows.runs_overview WHERE NOT tombstone AND parent_run_id IS NULL"
            + " AND name = ?"
            + (active ? " AND status::text IN ('running', 'parked')" : "")
            + " ORDER BY created_at, run_id";
    List<RunRef> ids = new ArrayList<>();
    try (PreparedStatement st = c.prepareStatement(sql)) {
      st.setString(1, name);
      try (ResultSet r = st.executeQuery()) {
        while (r.next()) {
          ids.add(new RunRef(r.getString(1)));
        }
      }
    }
    return ids;
  }
}
