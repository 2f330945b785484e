package dev.flows.ops.bench;

import static dev.flows.ops.bench.Bench.log;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.kernel.journal.EntryJson;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.JournalRecord;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.llm.ModelConfig;
import dev.flows.kernel.llm.ModelProvider;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.mcp.client.McpCredentials;
import dev.flows.mcp.testkit.ScriptedModel;
import dev.flows.mcp.testkit.ScriptedModel.ToolCall;
import dev.flows.mcp.testkit.ScriptedModel.Turn;
import dev.flows.mcp.testkit.ScriptedModelServer;
import dev.flows.sdk.runtime.FlowsEngine;
import dev.flows.sdk.runtime.Inventory;
import dev.flows.sdk.runtime.SdkConfig;
import dev.flows.worker.WorkerConfig;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.openai.OpenAiChatModel;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Durable agents against the scripted OpenAI-compatible model server (real HTTP, LangChain4j's
 * OpenAI client): the time a durable model turn ({@code f.llm}, what each agent turn is) adds over
 * the bare LangChain4j call, the journal bytes each agent turn adds at turns 10, 100 and 500, and
 * the worker heap per agent run waiting on a signal after its first turn, and per agent run parked
 * on a tool call waiting for approval.
 */
record AgentsBench(Bench.Plan plan, Pg pg, Report report) implements Section {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  static final String DB = "bench_agents";

  /** The agent turns whose journal bytes are reported (those the run reaches). */
  static final List<Integer> TURNS = List.of(10, 100, 500);

  /** The tool-call arguments each turn asks for: the fixed message size. */
  static final String ARGS = "{\"ticket\":\"" + "x".repeat(200) + "\"}";

  /** How many samples and runs, by plan. */
  record Size(int warmup, int samples, int turns, int waiting) {
    static Size of(String mode) {
      return switch (mode) {
        case "smoke" -> new Size(2, 5, 12, 5);
        case "quick" -> new Size(20, 100, 500, 1000);
        default -> new Size(100, 500, 500, 1000);
      };
    }
  }

  /**
   * What the section measured: per-call nanoseconds of the bare and the durable call, the journal
   * bytes of each reported turn, the whole agent run's journal, and the heap before and after the
   * waiting runs parked.
   */
  record Result(
      Size size,
      Stats bare,
      Stats durable,
      Map<Integer, Long> bytesAtTurn,
      long runBytes,
      int runEntries,
      long heapBefore,
      long heapAfter,
      long approvalHeapAfter,
      String loadAtEnd) {}

  @Override
  public void run() throws Exception {
    Size size = Size.of(plan.mode());
    log("agents: " + size);
    String url = pg.fresh(DB, true);
    List<Turn> script = new ArrayList<>();
    int calls = 2 * (size.warmup() + size.samples());
    for (int i = 0; i < calls; i++) {
      script.add(Turn.text("ok", 12, 3));
    }
    ToolCall call = new ToolCall("c", "none__tool", JSON.textNode(ARGS));
    for (int i = 0; i < size.turns(); i++) {
      script.add(Turn.toolCalls(call));
    }
    script.add(Turn.text("done", 10, 2));
    try (ScriptedModelServer server = ScriptedModelServer.start(new ScriptedModel(script));
        ScriptedModelServer waits =
            ScriptedModelServer.start(
                new ScriptedModel(
                    java.util.Collections.nCopies(size.waiting(), Turn.text("wait", 12, 3))));
        ScriptedModelServer approvals =
            ScriptedModelServer.start(
                new ScriptedModel(
                    java.util.Collections.nCopies(size.waiting(), AgentFlows.REFUND_TURN)));
        PostgresJournal journal = PostgresJournal.connect(JournalStoreConfig.forUrl(url));
        FlowsEngine engine = engine(journal, server, waits, approvals)) {
      engine.startWorker();
      Stats bare = bare(server, size);
      Stats durable = durable(url, engine, size);
      RunRef agent = agentRun(url, engine, size);
      Map<Integer, Long> perTurn = bytesPerTurn(journal.entries(agent));
      List<JournalRecord> all = journal.entries(agent);
      long runBytes = all.stream().mapToLong(AgentsBench::bytes).sum();
      long before = heapUsed();
      waiting(engine, waits, size);
      long after = heapUsed();
      approving(engine, approvals, size);
      long approvalAfter = heapUsed();
      report.agents(
          new Result(
              size,
              bare,
              durable,
              perTurn,
              runBytes,
              all.size(),
              before,
              after,
              approvalAfter,
              loadAverage()));
    } finally {
      pg.drop(DB);
    }
  }

  private static FlowsEngine engine(
      PostgresJournal journal,
      ScriptedModelServer server,
      ScriptedModelServer waits,
      ScriptedModelServer approvals) {
    FlowsEngine e =
        new FlowsEngine(
            journal,
            WorkerConfig.defaults().toBuilder().capacity(32).build(),
            // Waiting bodies give their worker slot back soon, as long waits do.
            SdkConfig.DEFAULTS.toBuilder().suspendAfter(Duration.ofMillis(200)).build(),
            McpClientConfig.DEFAULTS,
            McpCredentials.fromEnvironment());
    e.models()
        .declare(model(AgentFlows.MODEL, server))
        .declare(model(AgentFlows.WAIT_MODEL, waits))
        .declare(model(AgentFlows.APPROVE_MODEL, approvals));
    e.register(AgentFlows.TURNS);
    e.register(AgentFlows.AGENT);
    e.register(AgentFlows.WAITER);
    e.register(AgentFlows.APPROVER);
    return e;
  }

  private static ModelConfig model(String name, ScriptedModelServer server) {
    return new ModelConfig(
        name,
        ModelProvider.OPENAI_COMPATIBLE,
        "gpt-scripted",
        Optional.of(URI.create(server.baseUrl())),
        Optional.empty(),
        Duration.ofSeconds(30));
  }

  /** The same one-message call through LangChain4j's OpenAI client alone. */
  private static Stats bare(ScriptedModelServer server, Size size) {
    ChatModel chat =
        OpenAiChatModel.builder()
            .apiKey("none")
            .baseUrl(server.baseUrl())
            .modelName("gpt-scripted")
            .maxRetries(0)
            .build();
    List<Long> nanos = new ArrayList<>();
    for (int i = 0; i < size.warmup() + size.samples(); i++) {
      long t0 = System.nanoTime();
      chat.chat(ChatRequest.builder().messages(UserMessage.from("hi")).build());
      if (i >= size.warmup()) {
        nanos.add(System.nanoTime() - t0);
      }
    }
    return Stats.of(nanos);
  }

  /** One run making every call as {@code f.llm}, each timed by the body. */
  private static Stats durable(String url, FlowsEngine engine, Size size) throws Exception {
    AgentFlows.TURN_NANOS.clear();
    Runs.admitAndWait(
        url,
        engine,
        AgentFlows.TURNS,
        1,
        i -> JSON.objectNode().put("calls", size.warmup() + size.samples()));
    List<Long> all = new ArrayList<>(AgentFlows.TURN_NANOS);
    return Stats.of(all.subList(size.warmup(), all.size()));
  }

  /** An agent of {@code turns} tool-call turns and a final answer. */
  private static RunRef agentRun(String url, FlowsEngine engine, Size size) throws Exception {
    RunRef run =
        engine
            .admit(
                Engines.loaded(AgentFlows.AGENT),
                JSON.objectNode().put("turns", size.turns() + 1),
                Optional.empty(),
                Inventory.empty())
            .runId();
    Runs.awaitEnded(url, List.of(run), Optional.of(engine.journal()));
    return run;
  }

  /**
   * The journal bytes of each reported turn: the entries on its {@code /memo/<position>} surface
   * (its effect recorded and confirmed with the receipt), as their timeline JSON.
   */
  static Map<Integer, Long> bytesPerTurn(List<JournalRecord> entries) {
    Map<Integer, Long> bySurface = new TreeMap<>();
    for (JournalRecord r : entries) {
      surface(r.entry())
          .filter(s -> s.matches("/memo/\\d+"))
          .ifPresent(s -> bySurface.merge(Integer.parseInt(s.substring(6)), bytes(r), Long::sum));
    }
    List<Long> turns = new ArrayList<>(bySurface.values());
    Map<Integer, Long> out = new TreeMap<>();
    for (int t : TURNS) {
      if (t <= turns.size()) {
        out.put(t, turns.get(t - 1));
      }
    }
    return out;
  }

  private static Optional<String> surface(JournalEntry e) {
    return switch (e) {
      case JournalEntry.EffectRecorded r -> Optional.of(r.surfacePath());
      case JournalEntry.EffectConfirmed c -> Optional.of(c.surfacePath());
      default -> Optional.empty();
    };
  }

  private static long bytes(JournalRecord r) {
    return EntryJson.timeline(r).toString().getBytes(StandardCharsets.UTF_8).length;
  }

  /** Starts the agent runs that take one turn and wait on a signal, until all wait. */
  private static void waiting(FlowsEngine engine, ScriptedModelServer waits, Size size)
      throws Exception {
    for (int i = 0; i < size.waiting(); i++) {
      engine.admit(
          Engines.loaded(AgentFlows.WAITER),
          JSON.objectNode(),
          Optional.empty(),
          Inventory.empty());
    }
    long until = System.nanoTime() + Duration.ofMinutes(5).toNanos();
    while (waits.requests().size() < size.waiting() && System.nanoTime() < until) {
      Thread.sleep(200);
    }
    // Past the bodies' in-memory wait: each has given its slot back and holds nothing.
    Thread.sleep(2_000);
    log("  " + waits.requests().size() + " agent runs waiting");
  }

  /**
   * Starts the agent runs whose one turn asks for a tool that needs approval, until every model
   * answer is in; each run then waits, parked on its proposed call (never sent).
   */
  private static void approving(FlowsEngine engine, ScriptedModelServer approvals, Size size)
      throws Exception {
    Inventory inventory =
        Engines.inventory(
            dev.flows.mcp.testkit.Jvm.stdioServer(BenchFlows.STDIO, List.of(), Map.of()),
            Optional.empty());
    for (int i = 0; i < size.waiting(); i++) {
      engine.admit(
          Engines.loaded(AgentFlows.APPROVER), JSON.objectNode(), Optional.empty(), inventory);
    }
    long until = System.nanoTime() + Duration.ofMinutes(5).toNanos();
    while (approvals.requests().size() < size.waiting() && System.nanoTime() < until) {
      Thread.sleep(200);
    }
    // Past the bodies' in-memory wait on the proposed call: each has given its slot back.
    Thread.sleep(2_000);
    log("  " + approvals.requests().size() + " agent runs waiting on approval");
  }

  private static long heapUsed() throws InterruptedException {
    Runtime rt = Runtime.getRuntime();
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(100);
    }
    return rt.totalMemory() - rt.freeMemory();
  }

  private static String loadAverage() {
    try {
      String[] l =
          java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).split(" ");
      return l[0] + " / " + l[1] + " / " + l[2];
    } catch (java.io.IOException e) {
      return "unknown";
    }
  }

  /** The flows of this section. */
  static final class AgentFlows {
    static final String MODEL = "scripted";
    static final String WAIT_MODEL = "scripted-waits";
    static final java.util.concurrent.ConcurrentLinkedQueue<Long> TURN_NANOS =
        new java.util.concurrent.ConcurrentLinkedQueue<>();
    static final Turns TURNS = new Turns();
    static final Agent AGENT = new Agent();
    static final Waiter WAITER = new Waiter();
    static final String APPROVE_MODEL = "scripted-approvals";
    static final Approver APPROVER = new Approver();

    /** The one turn of an {@link Approver}: a refund, the no-op tool that needs approval. */
    static final Turn REFUND_TURN =
        Turn.toolCalls(
            new ToolCall(
                "refund", BenchFlows.STDIO + "__noop", JSON.objectNode().put("amount", 10)));

    private AgentFlows() {}

    /** {@code input.calls} one-message {@code f.llm} calls, each timed. */
    static final class Turns implements dev.flows.sdk.Flow<JsonNode, JsonNode> {
      @Override
      public dev.flows.sdk.FlowHeader header() {
        return dev.flows.sdk.FlowHeader.named("bench-llm-turns").models(MODEL).build();
      }

      @Override
      public JsonNode run(dev.flows.sdk.Ctx f, JsonNode input) {
        for (int i = 0; i < input.path("calls").asInt(); i++) {
          long t0 = System.nanoTime();
          f.llm(MODEL).user("hi").call();
          TURN_NANOS.add(System.nanoTime() - t0);
        }
        return JSON.nullNode();
      }
    }

    /** An agent with no tools: each turn asks for one it lacks, answered with an error. */
    static final class Agent implements dev.flows.sdk.Flow<JsonNode, JsonNode> {
      @Override
      public dev.flows.sdk.FlowHeader header() {
        return dev.flows.sdk.FlowHeader.named("bench-agent").models(MODEL).build();
      }

      @Override
      public JsonNode run(dev.flows.sdk.Ctx f, JsonNode input) {
        return JSON.textNode(f.agent(MODEL).maxTurns(input.path("turns").asInt()).run("go"));
      }
    }

    /** One model turn, then a wait for a signal (as an agent waits for a decision). */
    static final class Waiter implements dev.flows.sdk.Flow<JsonNode, JsonNode> {
      @Override
      public dev.flows.sdk.FlowHeader header() {
        return dev.flows.sdk.FlowHeader.named("bench-agent-waiter").models(WAIT_MODEL).build();
      }

      @Override
      public JsonNode run(dev.flows.sdk.Ctx f, JsonNode input) {
        f.llm(WAIT_MODEL).user("triage").call();
        return f.awaitSignal("decision", Duration.ofHours(1)).orElse(JSON.nullNode());
      }
    }

    /** An agent whose one turn asks for a tool call that waits for approval. */
    static final class Approver implements dev.flows.sdk.Flow<JsonNode, JsonNode> {
      @Override
      public dev.flows.sdk.FlowHeader header() {
        return dev.flows.sdk.FlowHeader.named("bench-agent-approver")
            .mcp(BenchFlows.STDIO)
            .models(APPROVE_MODEL)
            .build();
      }

      @Override
      public JsonNode run(dev.flows.sdk.Ctx f, JsonNode input) {
        return JSON.textNode(
            f.agent(APPROVE_MODEL)
                .tools(dev.flows.sdk.Tools.of(BenchFlows.STDIO, "noop"))
                .approve(BenchFlows.STDIO, "noop")
                .maxTurns(2)
                .run("refund"));
      }
    }
  }
}
