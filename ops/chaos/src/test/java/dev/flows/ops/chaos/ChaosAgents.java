package dev.flows.ops.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.mcp.testkit.ConversationModel;
import dev.flows.mcp.testkit.ScriptedModelServer;
import dev.flows.sdk.runtime.LedgerFlows;
import dev.flows.sdk.runtime.LoadedFlow;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The agent runs of the chaos load: {@code f.agent} over the idempotency-aware server's {@code
 * echo} and {@code ledger} tools, against a {@link ConversationModel} served by the harness (one
 * server for every worker, outside the faults' reach). Three model turns: the first asks for two
 * tools at once (parallel calls), the second for one, the third answers with every result. Each
 * answer comes after {@link #MODEL_LATENCY}, so a worker kill lands mid-turn as often as mid-tool.
 */
final class ChaosAgents {
  static final String MODEL = "chaos";

  /** How long the model takes over each answer. */
  static final Duration MODEL_LATENCY = Duration.ofMillis(300);

  /** The planned tool turns (tool names as the model is shown them). */
  static final List<List<String>> TURNS =
      List.of(List.of("idem__echo", "idem__ledger"), List.of("idem__ledger"));

  /** A root run's input key that marks an agent run: its run number. */
  static final String INPUT_KEY = "agent";

  static final String FLOW =
      """
      import com.fasterxml.jackson.databind.JsonNode;
      import com.fasterxml.jackson.databind.node.JsonNodeFactory;
      import dev.flows.sdk.*;

      public class ChaosAgent implements Flow<JsonNode, JsonNode> {
        public FlowHeader header() {
          return FlowHeader.named("chaos-agent").version("1").mcp("idem").models("MODEL").build();
        }

        public JsonNode run(Ctx f, JsonNode input) {
          long n = input.path("agent").asLong();
          String answer =
              f.agent("MODEL")
                  .instructions("Run the chaos errands with the tools, then report.")
                  .tools(Tools.of("idem", "echo", "ledger"))
                  .maxTurns(4)
                  .run("agent-" + n);
          return JsonNodeFactory.instance.objectNode().put("agent", n).put("answer", answer);
        }
      }
      """
          .replace("MODEL", MODEL);

  private static final ObjectMapper JSON = new ObjectMapper();

  private final ScriptedModelServer server;
  private final Path dir;
  private final LoadedFlow flow;

  private ChaosAgents(ScriptedModelServer server, Path dir, LoadedFlow flow) {
    this.server = server;
    this.dir = dir;
    this.flow = flow;
  }

  /**
   * Starts the model server and writes the agent flow into {@code dir}, beside a flows.json naming
   * the idempotency-aware server (its ledger {@code ledger}, shared with the mix) and the model.
   */
  static ChaosAgents start(Path dir, Path ledger) throws Exception {
    ScriptedModelServer server =
        ScriptedModelServer.start(ConversationModel.of(TURNS).withLatency(MODEL_LATENCY), 0);
    LedgerFlows.write(dir, "chaos-agent.flow.java", FLOW, "idem", true, ledger);
    ObjectNode config = (ObjectNode) JSON.readTree(dir.resolve("flows.json").toFile());
    config
        .putObject("models")
        .putObject(MODEL)
        .put("provider", "openai-compatible")
        .put("model", "chaos-conversation")
        .put("baseUrl", server.baseUrl());
    Files.writeString(dir.resolve("flows.json"), config.toString());
    LoadedFlow flow = LoadedFlow.load(dir.resolve("chaos-agent.flow.java").toString(), dir);
    return new ChaosAgents(server, dir, flow);
  }

  LoadedFlow flow() {
    return flow;
  }

  /** The worker JVM flag that declares the model to a worker (as its flows.json says). */
  String workerFlag() {
    return "-Dflows.test.modelsFrom=" + dir;
  }

  void close() throws Exception {
    server.close();
  }

  /** The answer agent run {@code n} must end with, its ledger calls' results {@code ledger}. */
  static String expected(long n, List<String> ledger) {
    String user = "agent-" + n;
    List<String> results = new ArrayList<>();
    results.add(ConversationModel.argument(user, 0, 0));
    results.addAll(ledger);
    return ConversationModel.answer(user, results);
  }

  /**
   * Every agent run that succeeded answered exactly what the model's rules give for its own user
   * message and its own tool results: the echo of its first call, then the ledger's {@code
   * performed KEY} of each of its two ledger calls, each key one its own child runs confirmed and
   * the server performed. Counts the agent runs by status and the model requests, and how many of
   * them asked a turn again.
   */
  void check(Connection c, ChaosChecks checks, Path idemLedger) throws SQLException, IOException {
    Set<String> performed = new HashSet<>(Files.readAllLines(idemLedger));
    Map<String, Long> byStatus = new HashMap<>();
    // A plain statement: the driver would take jsonb's ? for a parameter.
    try (java.sql.Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT r.run_id, r.status::text, (r.spec->'steps'->0->'input'->>'agent')::bigint,"
                    + " s.output->>'answer' FROM flows.runs r"
                    + " JOIN flows.steps s ON s.run_id = r.run_id"
                    + " WHERE r.parent_run_id IS NULL AND r.spec->'steps'->0->'input' ? 'agent'")) {
      while (rs.next()) {
        byStatus.merge(rs.getString(2), 1L, Long::sum);
        if ("succeeded".equals(rs.getString(2))) {
          String run = rs.getString(1);
          checks.violations.addAll(
              answerViolations(run, rs.getLong(3), rs.getString(4), ledgerKeys(c, run), performed));
        }
      }
    }
    byStatus.forEach((s, k) -> checks.facts.put("agent runs." + s, k));
    List<JsonNode> requests = server.requests();
    checks.facts.put("agent model requests", (long) requests.size());
    checks.facts.put(
        "agent model requests asked again (same conversation)",
        (long) (requests.size() - new HashSet<>(requests).size()));
  }

  /**
   * What is wrong with agent run {@code run}'s (number {@code n}) {@code answer}, given the keys of
   * the ledger calls its children confirmed and the keys the server performed: empty when nothing.
   */
  static List<String> answerViolations(
      String run, long n, String answer, List<String> keys, Set<String> performed) {
    List<String> out = new ArrayList<>();
    List<String> ledger = keys.stream().map(k -> "performed " + k).toList();
    // Turn 0's ledger result comes before turn 1's; which child confirmed first is the journal's.
    boolean matches =
        keys.size() == 2
            && (expected(n, ledger).equals(answer)
                || expected(n, ledger.reversed()).equals(answer));
    if (!matches) {
      out.add(
          "agent run "
              + run
              + " answered "
              + answer
              + ", its ledger keys "
              + keys
              + " give "
              + expected(n, ledger));
    }
    for (String k : keys) {
      if (!performed.contains(k)) {
        out.add("agent run " + run + "'s ledger key " + k + " was never performed");
      }
    }
    return out;
  }

  /** The idempotency keys of the ledger calls the agent run's children confirmed. */
  private static List<String> ledgerKeys(Connection c, String run) throws SQLException {
    List<String> out = new ArrayList<>();
    try (PreparedStatement st =
        c.prepareStatement(
            "SELECT e.payload->>'idempotencyKey' FROM flows.journal_entries e"
                + " JOIN flows.runs r ON r.run_id = e.run_id"
                + " WHERE r.parent_run_id = ? AND e.entry_type = 'effect.confirmed'"
                + " AND e.payload->>'surfacePath' = '/mcp/idem/ledger' ORDER BY e.seq")) {
      st.setString(1, run);
      try (ResultSet rs = st.executeQuery()) {
        while (rs.next()) {
          out.add(rs.getString(1));
        }
      }
    }
    return out;
  }
}
