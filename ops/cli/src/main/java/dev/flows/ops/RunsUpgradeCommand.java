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
import dev.flows.sdk.runtime.RunUpgrader;
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
 * {@code flows runs upgrade (RUN... | --flow NAME --from V) --to FLOW}: moves runs not ended to the
 * version of FLOW's code, each after a replay check of its journal against that code; exit 0 when
 * every run moved, 2 otherwise.
 */
@Command(
    name = "upgrade",
    mixinStandardHelpOptions = true,
    description =
        "Move runs that have not ended to another version of their flow: each run's journal is"
            + " replay-checked against the new code first, and a run that diverges is refused"
            + " (replay_incompatible, naming the position). Exit 0 all moved, 2 otherwise.")
final class RunsUpgradeCommand implements Callable<Integer> {
  @Parameters(arity = "0..*", paramLabel = "RUN", description = "The runs to move.")
  List<String> runs = List.of();

  @Option(
      names = "--flow",
      paramLabel = "NAME",
      description = "With --from: every root run of this flow not ended at that version.")
  String flowName;

  @Option(names = "--from", paramLabel = "V", description = "The version the runs are on.")
  String from;

  @Option(
      names = "--to",
      required = true,
      paramLabel = "FLOW",
      description =
          "The code to move them to: NAME.flow.java, or a flow class; its header's version is the"
              + " runs' new version.")
  String to;

  private final Session s;

  RunsUpgradeCommand(Session s) {
    this.s = s;
  }

  @Override
  public Integer call() {
    LoadedFlow loaded = LoadedFlow.load(to, Path.of("").toAbsolutePath());
    Flow<?, ?> code = loaded.flow();
    List<RunRef> ids = selected(code.header().name());
    Journal journal = s.commandJournal();
    RunUpgrader upgrader =
        new RunUpgrader(
            journal,
            new ReplayChecker(
                journal,
                new FlowResolver().register(code),
                SdkConfig.DEFAULTS,
                InstantSource.system()));
    List<RunUpgrader.Outcome> outcomes = new ArrayList<>();
    for (RunRef id : ids) {
      outcomes.add(upgrader.upgrade(id, code, loaded.origin(), RunsCommand.operator()));
    }
    long refused = outcomes.stream().filter(o -> o instanceof RunUpgrader.Outcome.Refused).count();
    String summary = "upgraded %d, refused %d".formatted(outcomes.size() - refused, refused);
    ObjectNode out = s.object();
    out.put("flow", code.header().name());
    out.put("version", code.header().version());
    ArrayNode list = out.putArray("runs");
    for (RunUpgrader.Outcome o : outcomes) {
      ObjectNode r = list.addObject().put("runId", o.run().value());
      r.put("upgraded", o instanceof RunUpgrader.Outcome.Upgraded);
      if (o instanceof RunUpgrader.Outcome.Refused f) {
        r.put("code", f.code().wire()).put("message", f.message());
        f.divergence().ifPresent(d -> r.put("position", d.position()));
      }
      r.put("outcome", o.describe());
    }
    out.put("upgraded", outcomes.size() - refused);
    out.put("refused", refused);
    out.put("summary", summary);
    s.emit(
        out,
        p -> {
          outcomes.forEach(o -> p.println(o.run().value() + "  " + o.describe()));
          p.println(summary);
        });
    return refused == 0 ? Exit.SUCCESS : Exit.REFUSED;
  }

  private List<RunRef> selected(String name) {
    boolean byVersion = flowName != null || from != null;
    if (byVersion == !runs.isEmpty() || (byVersion && (flowName == null || from == null))) {
      throw new FlowsException(
          ErrorCode.INVALID_INPUT,
          "give either run ids or --flow NAME --from V",
          "flows runs upgrade",
          "e.g. `flows runs upgrade --flow triage --from 1 --to triage.flow.java`");
    }
    if (!byVersion) {
      s.readyDatabase();
      return runs.stream().map(RunsCommand::runId).toList();
    }
    if (!flowName.equals(name)) {
      throw new FlowsException(
          ErrorCode.INVALID_INPUT,
          "--to names flow " + name + ", not " + flowName,
          "--to",
          "give the new code of flow " + flowName);
    }
    return s.readyDatabase().withConnection(c -> atVersion(c, flowName, from));
  }

  /** The flow's root runs not ended whose body is at {@code version}, oldest first. */
  private static List<RunRef> atVersion(Connection c, String name, String version)
      throws SQLException {
    String sql =
        "SELECT r.run_id FROM flows.runs r JOIN flows.steps s ON s.run_id = r.run_id"
            + " AND s.position = 0 WHERE NOT r.tombstone AND r.parent_run_id IS NULL"
            + " AND r.name = ? AND r.status IN ('running', 'parked')"
            + " AND s.spec #>> '{agent,instruction,version}' = ?"
            + " ORDER BY r.created_at, r.run_id";
    List<RunRef> ids = new ArrayList<>();
    try (PreparedStatement st = c.prepareStatement(sql)) {
      st.setString(1, name);
      st.setString(2, version);
      try (ResultSet r = st.executeQuery()) {
        while (r.next()) {
          ids.add(new RunRef(r.getString(1)));
        }
      }
    }
    return ids;
  }
}
