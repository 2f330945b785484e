package dev.flows.sdk.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.instruction.FlowBodyInstruction;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.InMemoryJournal;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.ManualClock;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.mcp.McpAuth;
import dev.flows.kernel.mcp.McpServerConfig;
import dev.flows.kernel.mcp.ToolDescriptor;
import dev.flows.sdk.ChildFailedException;
import dev.flows.sdk.Ctx;
import dev.flows.sdk.Flow;
import dev.flows.sdk.FlowHeader;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

class DurableFlowTest {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
  private final InMemoryJournal journal = new InMemoryJournal(clock);
  private final FlowResolver resolver = new FlowResolver();
  private SdkConfig config = SdkConfig.DEFAULTS;

  static Inventory inventory() {
    ToolDescriptor.ToolHints none = ToolDescriptor.ToolHints.NONE;
    return Inventory.of(
        List.of(
            new Inventory.Server(
                new McpServerConfig.Stdio(
                    "tickets", "bin/tickets", List.of(), List.of(), Map.of(), Optional.empty()),
                false,
                List.of(tool("tickets", "classify", none), tool("tickets", "create", none))),
            new Inventory.Server(
                new McpServerConfig.Http(
                    "pay", URI.create("http://127.0.0.1:1/mcp"), Map.of(), new McpAuth.None()),
                true,
                List.of(tool("pay", "charge", none)))));
  }

  static ToolDescriptor tool(String server, String name, ToolDescriptor.ToolHints hints) {
    return new ToolDescriptor(
        server,
        name,
        Optional.empty(),
        Optional.empty(),
        JSON.objectNode(),
        Optional.empty(),
        hints);
  }

  /** A flow whose body is a lambda, for tests. */
  record TestFlow(FlowHeader header, Body body) implements Flow<JsonNode, JsonNode> {
    interface Body {
      JsonNode run(Ctx f, JsonNode input) throws Exception;
    }

    @Override
    public JsonNode run(Ctx f, JsonNode input) throws Exception {
      return body.run(f, input);
    }
  }

  private RunRef start(Flow flow) {
    return start(
        journal, resolver, flow, JSON.objectNode().put("ticket", "printer on fire"), config);
  }

  /** Registers {@code flow} and admits a run of it with {@code input}, as a class flow. */
  static RunRef start(
      Journal journal, FlowResolver resolver, Flow flow, JsonNode input, SdkConfig config) {
    resolver.register(flow);
    return journal
        .admit(
            StartRun.of(
                "k-" + System.nanoTime(),
                Lowering.root(
                    flow.header(),
                    new FlowBodyInstruction.Origin.ClassFlow(flow.getClass().getName()),
                    input,
                    inventory(),
                    config)),
            Admit.queued())
        .runId();
  }

  private RunSnapshot drive(MiniWorker w, RunRef root, BooleanSupplier stop) throws Exception {
    return drive(journal, w, root, stop);
  }

  /** Ticks {@code w} until the run ends, parks, or {@code stop} says so (20 s at most). */
  static RunSnapshot drive(Journal journal, MiniWorker w, RunRef root, BooleanSupplier stop)
      throws Exception {
    long until = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (System.nanoTime() < until) {
      RunSnapshot s = journal.run(root).orElseThrow();
      if (s.status().terminal() || s.status() == RunStatus.PARKED || stop.getAsBoolean()) {
        return s;
      }
      if (w.tick() == 0) {
        journal.awaitWork(Duration.ofMillis(20));
      }
    }
    throw new AssertionError("run did not finish: " + journal.run(root));
  }

  /**
   * The worker dies: its bodies are interrupted, the lease runs out and is expired, and the run is
   * driven on from its next attempt until it ends.
   */
  static RunSnapshot killAndReplay(Journal journal, ManualClock clock, MiniWorker w, RunRef root)
      throws Exception {
    w.killBodies();
    clock.advance(Duration.ofSeconds(31));
    assertThat(journal.expireLeases()).hasSize(1);
    clock.advance(Duration.ofSeconds(61));
    return drive(journal, w, root, () -> false);
  }

  private static final FlowHeader HEADER =
      FlowHeader.named("triage").version("1").mcp("tickets", "pay").build();

  private static JsonNode triage(Ctx f, JsonNode input, AtomicInteger stepRuns) {
    String text =
        f.step(
                "normalize",
                () -> {
                  stepRuns.incrementAndGet();
                  return input.path("ticket").asText().toUpperCase();
                })
            .asText();
    f.mcp("tickets").tool("classify").call(Map.of("text", text));
    var created = f.mcp("tickets").tool("create").call(Map.of("title", text));
    f.step("audit", () -> Map.of("seen", created.text()));
    var charge = f.mcp("pay").tool("charge").call(Map.of("cents", 500));
    return JSON.objectNode().put("charged", charge.text()).put("key", charge.idempotencyKey());
  }

  @Test
  void eachStepsMemoIsJournaledAfterItsBodyRanByTheEndOfAShortBody() throws Exception {
    List<String> effectCalls = new java.util.concurrent.CopyOnWriteArrayList<>();
    Journal counting =
        (Journal)
            java.lang.reflect.Proxy.newProxyInstance(
                Journal.class.getClassLoader(),
                new Class<?>[] {Journal.class},
                (proxy, m, args) -> {
                  if (m.getName().contains("Effect")) {
                    for (Object memo : (List<?>) args[1]) {
                      effectCalls.add(
                          m.getName()
                              + " "
                              + ((dev.flows.kernel.journal.MemoEffect) memo).surfacePath());
                    }
                  }
                  if (m.getName().equals("complete")
                      && args[1] instanceof dev.flows.kernel.journal.StepOutcome.Succeeded ok) {
                    ok.memos().forEach(memo -> effectCalls.add("complete " + memo.surfacePath()));
                  }
                  try {
                    return m.invoke(journal, args);
                  } catch (java.lang.reflect.InvocationTargetException e) {
                    throw e.getCause();
                  }
                });
    RunRef root =
        start(
            new TestFlow(
                FlowHeader.named("memos").version("1").build(),
                (f, in) -> {
                  f.step("a", () -> 1);
                  f.step("b", () -> 2);
                  return JSON.nullNode();
                }));
    MiniWorker w = new MiniWorker(counting, new FlowBodyRunner(counting, resolver, config));

    assertThat(drive(w, root, () -> false).status()).isEqualTo(RunStatus.SUCCEEDED);
    assertThat(effectCalls).containsExactly("complete /memo/1", "complete /memo/2");
    assertThat(
            journal.entries(root).stream()
                .map(r -> r.entry())
                .filter(e -> e instanceof JournalEntry.EffectConfirmed)
                .map(e -> ((JournalEntry.EffectConfirmed) e).output().orElseThrow())
                .map(o -> o.path("value").asInt()))
        .containsExactly(1, 2);
  }

  @Test
  void aFlowWithThreeMcpCallsAndTwoStepsSucceedsWithThreeReceiptsAndEachKeyPerformedOnce()
      throws Exception {
    AtomicInteger stepRuns = new AtomicInteger();
    RunRef root = start(new TestFlow(HEADER, (f, in) -> triage(f, in, stepRuns)));
    MiniWorker w = new MiniWorker(journal, new FlowBodyRunner(journal, resolver, config));
    RunSnapshot done = drive(w, root, () -> false);

    assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
    assertThat(done.steps().getFirst().output().orElseThrow().path("charged").asText())
        .isEqualTo("charge done");
    List<RunRef> children = journal.children(root);
    assertThat(children).hasSize(3);
    for (RunRef c : children) {
      assertThat(
              journal.entries(c).stream()
                  .filter(r -> r.entry() instanceof JournalEntry.EffectRecorded))
          .hasSize(1);
      assertThat(
              journal.entries(c).stream()
                  .filter(r -> r.entry() instanceof JournalEntry.EffectConfirmed))
          .hasSize(1);
      JsonNode receipt = journal.run(c).orElseThrow().steps().getFirst().output().orElseThrow();
      assertThat(receipt.path("type").asText()).isEqualTo("mcp");
      assertThat(receipt.fieldNames())
          .toIterable()
          .containsExactlyInAnyOrder("type", "server", "tool", "input", "output", "idempotencyKey");
    }
    assertThat(w.performedByKey.values()).hasSize(3).allMatch(n -> n.get() == 1);
    assertThat(w.calls).containsExactly("tickets/classify", "tickets/create", "pay/charge");
    assertThat(stepRuns.get()).isEqualTo(1);
  }

  @Test
  void aParkedCallResolvedAsPerformedWakesTheFlowWhichGetsTheResultAsItsMcpResult()
      throws Exception {
    config = config.toBuilder().childPoll(Duration.ofMillis(20)).build();
    RunRef root =
        start(
            new TestFlow(
                HEADER,
                (f, in) -> {
                  var created = f.mcp("tickets").tool("create").call(Map.of("title", "X"));
                  return JSON.objectNode()
                      .put("id", created.structured().orElseThrow().path("id").asText())
                      .put("key", created.idempotencyKey());
                }));
    MiniWorker w = new MiniWorker(journal, new FlowBodyRunner(journal, resolver, config));
    w.parkMcp = true;
    assertThat(drive(w, root, () -> false).status()).isEqualTo(RunStatus.PARKED);
    RunRef child = journal.children(root).getFirst();
    assertThat(journal.run(child).orElseThrow().status()).isEqualTo(RunStatus.PARKED);

    journal.resolveStep(
        child, Lowering.CALL_STEP, Optional.of(JSON.objectNode().put("id", "T-1001")), "operator");
    RunSnapshot done = drive(w, root, () -> false);

    assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
    JsonNode output = done.steps().getFirst().output().orElseThrow();
    assertThat(output.path("id").asText()).isEqualTo("T-1001");
    assertThat(output.path("key").asText())
        .isEqualTo(dev.flows.kernel.keys.Keys.idempotencyKey(child, Lowering.CALL_STEP));
    assertThat(w.calls).as("the resolved call is not sent").isEmpty();
  }

  @Test
  void aBodyKilledMidwayReplaysFromTheJournalWithoutRepeatingAnyCall() throws Exception {
    AtomicInteger stepRuns = new AtomicInteger();
    CountDownLatch reachedCreate = new CountDownLatch(1);
    AtomicInteger attempts = new AtomicInteger();
    config =
        config.toBuilder()
            .childPoll(Duration.ofMillis(20))
            .rootMaxIterations(3)
            .mcpMaxIterations(3)
            .commandMaxIterations(3)
            .build();
    RunRef root =
        start(
            new TestFlow(
                HEADER,
                (f, in) -> {
                  int attempt = attempts.incrementAndGet();
                  f.step(
                      "normalize",
                      () -> {
                        stepRuns.incrementAndGet();
                        return "X";
                      });
                  f.mcp("tickets").tool("classify").call(Map.of("text", "X"));
                  f.mcp("tickets").tool("create").call(Map.of("title", "X"));
                  if (attempt == 1) {
                    reachedCreate.countDown();
                    new CountDownLatch(1).await(); // the worker dies here
                  }
                  return JSON.textNode(f.mcp("pay").tool("charge").call(Map.of("cents", 1)).text());
                }));
    MiniWorker w = new MiniWorker(journal, new FlowBodyRunner(journal, resolver, config));
    drive(w, root, () -> reachedCreate.getCount() == 0);
    RunSnapshot done = killAndReplay(journal, clock, w, root);

    assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
    assertThat(attempts.get()).isEqualTo(2);
    assertThat(stepRuns.get()).as("memoized step ran once").isEqualTo(1);
    assertThat(w.calls).containsExactly("tickets/classify", "tickets/create", "pay/charge");
    assertThat(w.performedByKey.values()).allMatch(n -> n.get() == 1);
  }

  @Test
  void aBodyThatMakesADifferentCallOnReplayIsRefusedShowingBothCalls() throws Exception {
    CountDownLatch reached = new CountDownLatch(1);
    AtomicInteger attempts = new AtomicInteger();
    RunRef root =
        start(
            new TestFlow(
                HEADER,
                (f, in) -> {
                  int attempt = attempts.incrementAndGet();
                  f.mcp("tickets").tool(attempt == 1 ? "classify" : "create").call(Map.of("n", 1));
                  if (attempt == 1) {
                    reached.countDown();
                    new CountDownLatch(1).await();
                  }
                  return JSON.nullNode();
                }));
    MiniWorker w = new MiniWorker(journal, new FlowBodyRunner(journal, resolver, config));
    drive(w, root, () -> reached.getCount() == 0);
    w.killBodies();
    clock.advance(Duration.ofSeconds(31));
    journal.expireLeases();
    clock.advance(Duration.ofSeconds(61));
    RunSnapshot done = drive(w, root, () -> false);

    assertThat(done.status()).isEqualTo(RunStatus.FAILED);
    JsonNode diag = lastTail(root);
    assertThat(diag.path("diagnostic").asText())
        .isEqualTo(ErrorCode.NONDETERMINISTIC_REPLAY.wire());
    assertThat(diag.path("message").asText()).contains("classify").contains("create");
    assertThat(w.calls).containsExactly("tickets/classify");
  }

  @Test
  void aStepReplacedByACallAtTheSamePositionIsRefused() throws Exception {
    CountDownLatch reached = new CountDownLatch(1);
    AtomicInteger attempts = new AtomicInteger();
    RunRef root =
        start(
            new TestFlow(
                HEADER,
                (f, in) -> {
                  if (attempts.incrementAndGet() == 1) {
                    f.step("first", () -> 1);
                    reached.countDown();
                    new CountDownLatch(1).await();
                  }
                  f.mcp("tickets").tool("classify").call(Map.of());
                  return JSON.nullNode();
                }));
    MiniWorker w = new MiniWorker(journal, new FlowBodyRunner(journal, resolver, config));
    // The step's memo is journaled behind the body, within the memo delay.
    drive(
        w,
        root,
        () ->
            reached.getCount() == 0
                && journal.entries(root).stream()
                    .anyMatch(r -> r.entry() instanceof JournalEntry.EffectConfirmed));
    w.killBodies();
    clock.advance(Duration.ofSeconds(31));
    journal.expireLeases();
    clock.advance(Duration.ofSeconds(61));
    drive(w, root, () -> false);
    assertThat(lastTail(root).path("diagnostic").asText()).isEqualTo("nondeterministic_replay");
    assertThat(w.calls).isEmpty();
  }

  @Test
  void callingAServerTheHeaderDoesNotDeclareOrAnUnknownToolFailsWithoutAChild() throws Exception {
    RunRef undeclared =
        start(
            new TestFlow(
                FlowHeader.named("u1").mcp("tickets").build(),
                (f, in) -> {
                  f.mcp("crm").tool("x").call(Map.of());
                  return JSON.nullNode();
                }));
    RunRef unknownTool =
        start(
            new TestFlow(
                FlowHeader.named("u2").mcp("tickets").build(),
                (f, in) -> {
                  f.mcp("tickets").tool("delete_everything").call(Map.of());
                  return JSON.nullNode();
                }));
    MiniWorker w = new MiniWorker(journal, new FlowBodyRunner(journal, resolver, config));
    drive(w, undeclared, () -> false);
    drive(w, unknownTool, () -> false);
    assertThat(lastTail(undeclared).path("diagnostic").asText()).isEqualTo("mcp_undeclared_server");
    assertThat(lastTail(unknownTool).path("diagnostic").asText()).isEqualTo("mcp_unknown_tool");
    assertThat(journal.children(undeclared)).isEmpty();
    assertThat(journal.children(unknownTool)).isEmpty();
  }

  @Test
  void aChildStartHeldBackPastTheDispatchDeadlineIsCancelledAndNoRunIsLeftOpen() throws Exception {
    config = config.toBuilder().dispatchDeadline(Duration.ofMillis(300)).build();
    CountDownLatch released = new CountDownLatch(1);
    FlowBodyRunner slowStarts =
        new FlowBodyRunner(
            journal,
            resolver,
            config,
            (j, req) -> {
              try {
                Thread.sleep(1_000); // the start lands long after the deadline
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              try {
                j.admit(req, Admit.queued());
              } finally {
                released.countDown();
              }
            });
    RunRef root =
        start(
            new TestFlow(
                HEADER,
                (f, in) -> {
                  try {
                    f.mcp("tickets").tool("classify").call(Map.of());
                    return JSON.textNode("unexpected");
                  } catch (ChildFailedException e) {
                    return JSON.textNode(e.code());
                  }
                }));
    MiniWorker w = new MiniWorker(journal, slowStarts);
    RunSnapshot done = drive(w, root, () -> false);
    assertThat(done.steps().getFirst().output().orElseThrow().asText())
        .isEqualTo("dispatch_timeout");
    released.await();
    RunRef child = Lowering.childId(root, 1);
    RunSnapshot c = journal.run(child).orElseThrow();
    assertThat(c.status()).isEqualTo(RunStatus.CANCELED);
    assertThat(c.steps()).as("the late start was refused by the tombstone").isEmpty();
    assertThat(w.calls).isEmpty();
  }

  @Test
  void aChildNobodyClaimsBeforeTheDeadlineOfTheBodysClockIsCancelledAndTheCallFails()
      throws Exception {
    // The body judges its dispatch deadline by its own clock: the hour passes there, not here.
    ManualClock bodyClock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
    config =
        config.toBuilder()
            .dispatchDeadline(Duration.ofHours(1))
            .childPoll(Duration.ofMillis(50))
            .build();
    RunRef root =
        start(
            new TestFlow(
                HEADER,
                (f, in) -> {
                  f.mcp("tickets").tool("classify").call(Map.of());
                  return JSON.nullNode();
                }));
    MiniWorker w =
        new MiniWorker(journal, new FlowBodyRunner(journal, resolver, config, bodyClock));
    w.tick(); // claims the root only; nobody serves the child
    RunRef child = Lowering.childId(root, 1);
    long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (journal.run(child).isEmpty() && System.nanoTime() < until) {
      journal.awaitWork(Duration.ofMillis(50));
    }
    bodyClock.advance(Duration.ofHours(2));
    while (!journal.run(root).orElseThrow().status().terminal() && System.nanoTime() < until) {
      journal.awaitWork(Duration.ofMillis(50));
    }
    assertThat(journal.run(root).orElseThrow().status()).isEqualTo(RunStatus.FAILED);
    assertThat(lastTail(root).path("diagnostic").asText()).isEqualTo("dispatch_timeout");
    assertThat(journal.run(child).orElseThrow().status()).isEqualTo(RunStatus.CANCELED);
  }

  private JsonNode lastTail(RunRef run) {
    JsonNode tail = JSON.nullNode();
    for (var r : journal.entries(run)) {
      if (r.entry() instanceof JournalEntry.StepCompleted c && c.trajectoryTail().isPresent()) {
        tail = c.trajectoryTail().get();
      }
    }
    return tail;
  }
}
