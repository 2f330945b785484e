package dev.flows.sdk.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.kernel.instruction.FlowBodyInstruction;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.InMemoryJournal;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.MemoVerb;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.lifecycle.StepStatus;
import dev.flows.sdk.FlowHeader;
import dev.flows.sdk.Pending;
import java.time.Clock;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * {@code f.patched} / {@code f.deprecatePatch} and the replay check, on the reference journal (the
 * Postgres run of the same cases is {@link PostgresPatchesAndReplayCheckTest}). The flow's code is
 * swapped under its running runs, as a deploy does.
 */
class PatchesAndReplayCheckTest {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  private final AtomicReference<DurableFlowTest.TestFlow.Body> code = new AtomicReference<>();
  private final AtomicInteger extra = new AtomicInteger();
  private final FlowResolver resolver = new FlowResolver();
  private final DurableFlowTest.TestFlow flow =
      new DurableFlowTest.TestFlow(
          FlowHeader.named("patches" + System.nanoTime()).mcp("tickets").build(),
          (f, in) -> code.get().run(f, in));

  Journal journal() {
    return new InMemoryJournal(Clock.systemUTC());
  }

  private final Journal journal = journal();
  private final MiniWorker worker =
      new MiniWorker(journal, new FlowBodyRunner(journal, resolver, SdkConfig.DEFAULTS));

  {
    resolver.register(flow);
  }

  /** The code before the change: a step, then a wait for approval, then the end. */
  private JsonNode v1(dev.flows.sdk.Ctx f, JsonNode in) {
    f.step("a", () -> 1);
    f.awaitSignal("go", Duration.ofHours(24));
    return JSON.textNode("old path");
  }

  /** The change without a patch: a new step before the wait. */
  private JsonNode v2(dev.flows.sdk.Ctx f, JsonNode in) {
    f.step("a", () -> 1);
    f.step("extra", extra::incrementAndGet);
    f.awaitSignal("go", Duration.ofHours(24));
    return JSON.textNode("new path");
  }

  /** The change behind a patch. */
  private JsonNode patched(dev.flows.sdk.Ctx f, JsonNode in) {
    f.step("a", () -> 1);
    boolean isNew = f.patched("extra");
    if (isNew) {
      f.step("extra", extra::incrementAndGet);
    }
    f.awaitSignal("go", Duration.ofHours(24));
    return JSON.textNode(isNew ? "new path" : "old path");
  }

  /** The cleanup once no run is on the old path. */
  private JsonNode deprecated(dev.flows.sdk.Ctx f, JsonNode in) {
    f.step("a", () -> 1);
    f.deprecatePatch("extra");
    f.step("extra", extra::incrementAndGet);
    f.awaitSignal("go", Duration.ofHours(24));
    return JSON.textNode("new path");
  }

  private RunRef start() {
    return journal
        .admit(
            StartRun.of(
                "k-" + System.nanoTime(),
                Lowering.root(
                    flow.header(),
                    new FlowBodyInstruction.Origin.ClassFlow("patches"),
                    JSON.objectNode(),
                    DurableFlowTest.inventory(),
                    SdkConfig.DEFAULTS)),
            Admit.queued())
        .runId();
  }

  private RunSnapshot settle(RunRef run) throws InterruptedException {
    long until = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (System.nanoTime() < until) {
      worker.tick();
      RunSnapshot s = journal.run(run).orElseThrow();
      boolean busy =
          s.steps().stream().anyMatch(st -> st.status() == StepStatus.RUNNING)
              || journal.children(run).stream()
                  .anyMatch(c -> !journal.run(c).orElseThrow().status().terminal());
      if (!busy) {
        return s;
      }
      Thread.sleep(5);
    }
    throw new AssertionError("the run does not settle: " + journal.run(run));
  }

  private RunSnapshot finish(RunRef run) throws InterruptedException {
    journal.sendSignal(run, "go", JSON.objectNode(), Optional.empty());
    long until = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (System.nanoTime() < until) {
      RunSnapshot s = settle(run);
      if (s.status().terminal()) {
        return s;
      }
    }
    throw new AssertionError("the run does not end: " + journal.run(run));
  }

  private List<JsonNode> patchMemos(RunRef run) {
    return journal.entries(run).stream()
        .map(r -> r.entry())
        .filter(e -> e instanceof JournalEntry.EffectConfirmed)
        .map(e -> ((JournalEntry.EffectConfirmed) e).output().orElse(JSON.nullNode()))
        .filter(m -> m.path(MemoVerb.FIELD).asText().equals(MemoVerb.PATCHED.wire()))
        .toList();
  }

  @Test
  void aPatchIsFalseForARunThatPassedItOnOlderCodeAndTrueForARunThatReachesIt() throws Exception {
    code.set(this::v1);
    RunRef old = start();
    settle(old);
    code.set(this::patched);
    RunRef fresh = start();
    settle(fresh);

    RunSnapshot oldDone = finish(old);
    RunSnapshot freshDone = finish(fresh);

    assertThat(oldDone.status()).isEqualTo(RunStatus.SUCCEEDED);
    assertThat(oldDone.steps().getFirst().output()).contains(JSON.textNode("old path"));
    assertThat(patchMemos(old)).isEmpty();
    assertThat(freshDone.status()).isEqualTo(RunStatus.SUCCEEDED);
    assertThat(freshDone.steps().getFirst().output()).contains(JSON.textNode("new path"));
    assertThat(patchMemos(fresh))
        .containsExactly(
            JSON.objectNode().put(MemoVerb.FIELD, MemoVerb.PATCHED.wire()).put("patch", "extra"));
    assertThat(extra.get()).as("the new step ran for the new run only, once").isEqualTo(1);
  }

  @Test
  void aDeprecatedPatchGoesPastTheMemoOfARunThatTookIt() throws Exception {
    code.set(this::patched);
    RunRef tookIt = start();
    settle(tookIt);
    code.set(this::deprecated);
    RunRef fresh = start();
    settle(fresh);

    assertThat(finish(tookIt).status()).isEqualTo(RunStatus.SUCCEEDED);
    assertThat(finish(fresh).status()).isEqualTo(RunStatus.SUCCEEDED);
    assertThat(patchMemos(fresh)).as("a deprecated patch journals nothing").isEmpty();
    assertThat(extra.get()).isEqualTo(2);
  }

  private ReplayChecker checker() {
    return new ReplayChecker(journal, resolver, SdkConfig.DEFAULTS, InstantSource.system());
  }

  private DurableFlowTest.TestFlow as(DurableFlowTest.TestFlow.Body body) {
    return new DurableFlowTest.TestFlow(flow.header(), body);
  }

  @Test
  void aStepInsertedBeforeAWaitDivergesAtItsPositionAndBehindAPatchIsCompatible() throws Exception {
    code.set(this::v1);
    RunRef waiting = start();
    settle(waiting);
    int rows = journal.entries(waiting).size();

    ReplayVerdict changed = checker().check(waiting, as(this::v2));
    ReplayVerdict behindPatch = checker().check(waiting, as(this::patched));
    ReplayVerdict same = checker().check(waiting, as(this::v1));

    assertThat(changed)
        .isEqualTo(
            new ReplayVerdict.Diverges(waiting, 2, "f.awaitSignal(\"go\")", "f.step(\"extra\")"));
    assertThat(changed.describe())
        .isEqualTo(
            "diverges at position 2: journal has f.awaitSignal(\"go\"), code makes"
                + " f.step(\"extra\")");
    assertThat(behindPatch).isEqualTo(new ReplayVerdict.Compatible(waiting));
    assertThat(same).isEqualTo(new ReplayVerdict.Compatible(waiting));
    assertThat(extra.get()).as("no step body ran").isZero();
    assertThat(journal.entries(waiting)).hasSize(rows);
  }

  @Test
  void aBodyThatEndsWhereTheJournalHoldsAFurtherCallDivergesThere() throws Exception {
    code.set(this::v1);
    RunRef waiting = start();
    settle(waiting);

    ReplayVerdict shorter =
        checker()
            .check(
                waiting,
                as(
                    (f, in) -> {
                      f.step("a", () -> 1);
                      return JSON.textNode("no wait");
                    }));

    assertThat(shorter)
        .isEqualTo(
            new ReplayVerdict.Diverges(
                waiting, 2, "f.awaitSignal(\"go\")", "the body's end (it returned)"));
  }

  /** Every kind of call at once: MCP calls, a command, timers, signals, parallel calls, a patch. */
  private JsonNode everything(dev.flows.sdk.Ctx f, JsonNode in) {
    return everything(f, "b");
  }

  private JsonNode everything(dev.flows.sdk.Ctx f, String lastStep) {
    f.step("a", () -> 1);
    f.patched("p1");
    f.mcp("tickets").tool("classify").call(Map.of("text", "x"));
    f.command("scripts/notify.sh").call();
    f.sleep(Duration.ZERO);
    f.now();
    Pending<?> one = f.mcp("tickets").tool("create").callAsync(Map.of("n", 1));
    Pending<?> two = f.mcp("tickets").tool("create").callAsync(Map.of("n", 2));
    f.all(one, two);
    f.awaitSignal("go", Duration.ofHours(24));
    f.step(lastStep, () -> 2);
    f.awaitSignal("later", Duration.ofHours(24));
    return JSON.textNode("done");
  }

  @Test
  void aReplayCheckOfEveryKindOfCallAnswersFromTheJournalAndWritesAndAsksNothing()
      throws Exception {
    code.set(this::everything);
    RunRef run = start();
    settle(run);
    journal.sendSignal(run, "go", JSON.objectNode(), Optional.empty());
    settle(run);
    assertThat(worker.calls).hasSize(3);
    int rows = journal.entries(run).size();
    int children = journal.children(run).size();

    ReplayVerdict verdict = checker().check(run, as(this::everything));

    assertThat(verdict).isEqualTo(new ReplayVerdict.Compatible(run));
    assertThat(worker.calls).as("no server was asked again").hasSize(3);
    assertThat(journal.entries(run)).hasSize(rows);
    assertThat(journal.children(run)).hasSize(children);
    assertThat(journal.run(run).orElseThrow().steps().getFirst().attempts())
        .isEqualTo(settle(run).steps().getFirst().attempts());

    ReplayVerdict swapped =
        checker()
            .check(
                run,
                as(
                    (f, in) -> {
                      f.step("a", () -> 1);
                      f.patched("p1");
                      f.mcp("tickets").tool("classify").call(Map.of("text", "x"));
                      f.sleep(Duration.ZERO);
                      return JSON.nullNode();
                    }));
    assertThat(swapped)
        .isEqualTo(
            new ReplayVerdict.Diverges(run, 4, "f.command(scripts/notify.sh)", "f.sleep(PT0S)"));
    assertThat(checker().check(run, as((f, in) -> everything(f, "c"))))
        .as("the replay reaches the last journaled call")
        .isEqualTo(new ReplayVerdict.Diverges(run, 10, "f.step(\"b\")", "f.step(\"c\")"));
  }
}
