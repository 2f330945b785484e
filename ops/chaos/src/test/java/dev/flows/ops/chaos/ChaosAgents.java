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
          List<String> confirmed = ledgerKeys(c, run, "effect.confirmed");
          // A key is recorded again by each attempt that re-sends it: judge each key once.
          List<String> unconfirmed =
              new ArrayList<>(ledgerKeys(c, run, "effect.recorded").stream().distinct().toList());
          unconfirmed.removeAll(confirmed);
          checks.violations.addAll(
              answerViolations(
                  run, rs.getLong(3), rs.getString(4), confirmed, unconfirmed, performed));
          if (rs.getString(4) != null && rs.getString(4).contains(" | error (")) {
            checks.facts.merge("agent runs answered with a failed tool call", 1L, Long::sum);
          }
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
   * the ledger calls its children confirmed, the keys they recorded and never confirmed, and the
   * keys the server performed: empty when nothing. A ledger call that failed (its server killed
   * until its attempts ran out) reaches the model as {@code error (CODE): ...}, as any failed tool
   * call does: that answer holds only if the call's key was never performed, since a call the
   * server performed must be confirmed, not reported failed.
   */
  static List<String> answerViolations(
      String run,
      long n,
      String answer,
      List<String> keys,
      List<String> unconfirmed,
      Set<String> performed) {
    List<String> out = new ArrayList<>();
    if (!matches(n, answer, keys)) {
      List<String> ledger = keys.stream().map(k -> "performed " + k).toList();
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
    if (answer.contains(" | error (")) {
      for (String k : unconfirmed) {
        if (performed.contains(k)) {
          out.add(
              "agent run "
                  + run
                  + " answered a failed ledger call whose key "
                  + k
                  + " the server performed");
        }
      }
    }
    return out;
  }

  /**
   * Whether {@code answer} is the model's for agent run {@code n}: its echo, then one result per
   * ledger call, in either order: {@code performed KEY} for each confirmed key, an error for each
   * other call.
   */
  private static boolean matches(long n, String answer, List<String> keys) {
    String head = expected(n, List.of()) + " | ";
    if (!answer.startsWith(head)) {
      return false;
    }
    List<String> results = List.of(answer.substring(head.length()).split(" \\| ", -1));
    List<String> said =
        results.stream()
            .filter(r -> r.startsWith("performed "))
            .map(r -> r.substring("performed ".length()))
            .toList();
    long errors = results.stream().filter(r -> r.startsWith("error (")).count();
    return results.size() == 2
        && said.size() + errors == 2
        && said.size() == keys.size()
        && new HashSet<>(said).equals(new HashSet<>(keys));
  }

  /**
   * The idempotency keys of the ledger calls the agent run's children journaled as {@code type}.
   */
  private static List<String> ledgerKeys(Connection c, String run, String type)
      throws SQLException {
    List<String> out = new ArrayList<>();
    try (PreparedStatement st =
        c.prepareStatement(
            "SELECT e.payload->>'idempotencyKey' FROM flows.journal_entries e"
                + " JOIN flows.runs r ON r.run_id = e.run_id"
                + " WHERE r.parent_run_id = ? AND e.entry_type = CAST(? AS flows.entry_type)"
                + " AND e.payload->>'surfacePath' = '/mcp/idem/ledger' ORDER BY e.seq")) {
      st.setString(1, run);
      st.setString(2, type);
      try (ResultSet rs = st.executeQuery()) {
        while (rs.next()) {
          out.add(rs.getString(1));
        }
      }
    }
    return out;
  }
}
