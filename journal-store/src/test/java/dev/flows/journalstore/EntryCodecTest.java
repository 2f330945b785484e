package dev.flows.journalstore;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.kernel.journal.CompletionReason;
import dev.flows.kernel.journal.Disposition;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.JournalEntry.EffectRef;
import dev.flows.kernel.journal.RunCompletionReason;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.WorkerId;
import dev.flows.kernel.spec.RunSpec;
import dev.flows.kernel.spec.RunSpecJson;
import dev.flows.kernel.spec.StepKind;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class EntryCodecTest {
  private static final RunRef RUN = new RunRef("run_codec");
  private static final JsonNode OUT = JsonNodeFactory.instance.objectNode().put("ok", true);

  private static JournalEntry task(int attempt, dev.flows.kernel.journal.TaskNote note) {
    return new JournalEntry.EffectTask(RUN, "b", attempt, "/mcp/s/t", "k", note);
  }

  static Stream<JournalEntry> everyEntryType() {
    RunSpec spec =
        Specs.run("codec", Specs.llm("a"), Specs.agent("b", 2, "/mcp/x"), Specs.shell("c"));
    Instant t = Instant.parse("2026-11-29T12:00:00.123456Z");
    return Stream.of(
        new JournalEntry.RunSpawned(
            RUN,
            RunSpecJson.write(spec),
            RunSpecJson.hash(spec),
            Optional.of(new RunRef("parent")),
            "key",
            "test"),
        new JournalEntry.RunSpawned(
            RUN, RunSpecJson.write(spec), "h", Optional.empty(), "key", "test"),
        new JournalEntry.RunCancelRequested(RUN, "operator"),
        new JournalEntry.StepAttemptStarted(
            RUN, "a", 3, StepKind.AGENT, "k".repeat(64), "lease_1", t, new WorkerId("w-1")),
        new JournalEntry.StepCompleted(
            RUN,
            "a",
            1,
            CompletionReason.SUCCESS,
            Disposition.STEP_DONE,
            Optional.of(OUT),
            List.of(new EffectRef("/mcp/x", "k".repeat(64))),
            Optional.empty(),
            Optional.empty()),
        new JournalEntry.StepCompleted(
            RUN,
            "a",
            2,
            CompletionReason.LEASE_EXPIRED,
            Disposition.RETRY,
            Optional.empty(),
            List.of(),
            Optional.of(JsonNodeFactory.instance.arrayNode().add("tail")),
            Optional.of(t)),
        new JournalEntry.StepCompleted(
            RUN,
            "a",
            2,
            CompletionReason.WORKER_ERROR,
            Disposition.PARK,
            Optional.empty(),
            List.of(),
            Optional.of(JsonNodeFactory.instance.nullNode()),
            Optional.empty()),
        new JournalEntry.EffectRecorded(RUN, "b", 2, "/mcp/x", "k".repeat(64), true),
        new JournalEntry.EffectConfirmed(RUN, "b", 2, "/mcp/x", "k".repeat(64), Optional.of(OUT)),
        new JournalEntry.EffectConfirmed(RUN, "b", 2, "/mcp/x", "k".repeat(64), Optional.empty()),
        new JournalEntry.RunCompleted(RUN, RunCompletionReason.STEP_FAILED, Optional.of("a")),
        new JournalEntry.RunCompleted(RUN, RunCompletionReason.SUCCESS, Optional.empty()),
        new JournalEntry.RunResumed(RUN, "operator"),
        new JournalEntry.RunUpgraded(RUN, "1", "flow-body/1", "2", "flow-body/2", "flows-cli:ann"),
        new JournalEntry.StepResolved(RUN, "b", true, Optional.of(OUT), "operator"),
        new JournalEntry.StepResolved(RUN, "b", false, Optional.empty(), "operator"),
        new JournalEntry.StepAnswered(RUN, "b", OUT, "operator"),
        task(
            2,
            new dev.flows.kernel.journal.TaskNote(
                "t-1",
                "working",
                Optional.of("50%"),
                Optional.of(1000L),
                Optional.of(3_600_000L),
                "2026-07-28")),
        task(
            3,
            new dev.flows.kernel.journal.TaskNote(
                "t-1",
                "completed",
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                "2025-11-25")),
        new JournalEntry.EffectTaskCancel(
            RUN, "b", "/mcp/s/t", "t-1", "run canceled", "reconciler"));
  }

  @ParameterizedTest
  @MethodSource("everyEntryType")
  void everyEntryReadsBackAsTheSameRecordFromItsStoredText(JournalEntry entry) {
    EntryCodec.Row row = EntryCodec.encode(entry);
    JournalEntry back = EntryCodec.decode(RUN, row.type(), EntryCodec.parse(row.payload()));
    assertThat(back).isEqualTo(entry);
    assertThat(row.type()).isEqualTo(entry.type());
  }

  @Test
  void theSamplesCoverEveryEntryType() {
    assertThat(everyEntryType().<Class<?>>map(Object::getClass).distinct())
        .containsExactlyInAnyOrder(JournalEntry.class.getPermittedSubclasses());
  }

  @Test
  void aStoredStepSpecReadsBackEqualForEveryKind() {
    for (var s :
        List.of(
            Specs.llm("a"),
            Specs.agent("b", 3, "/mcp/x", "/mcp/y"),
            Specs.shell("c"),
            Specs.argv("d"),
            new dev.flows.kernel.spec.StepSpec(
                "e",
                List.of(),
                com.fasterxml.jackson.databind.node.NullNode.getInstance(),
                1,
                dev.flows.kernel.spec.BackoffPolicy.defaults(),
                java.util.OptionalLong.empty(),
                java.util.OptionalLong.empty(),
                new dev.flows.kernel.spec.StepBody.Deterministic(
                    List.of("pwd"), true, java.util.Optional.of("/srv/flows"))))) {
      JsonNode stored = EntryCodec.parse(EntryCodec.text(RunSpecJson.writeStep(s)));
      assertThat(StoredSpecs.readStep(stored)).isEqualTo(s);
    }
  }

  // ---------------------------------------------------------------- f.step hot path (perf-step2)

  /** Texts that need escaping, and some that do not, for the hand-written effect payloads. */
  static Stream<String> awkwardTexts() {
    return Stream.of(
        "/memo/1",
        "main",
        "quote \" backslash \\ slash /",
        "control \u0000 \u0001 \t \n \r \u001f",
        "non-ascii é ü 漢字 \uD83D\uDE00",
        "line\u2028separator",
        "");
  }

  @ParameterizedTest
  @MethodSource("awkwardTexts")
  void theHandWrittenEffectRecordedPayloadIsTheTextEncodeWrites(String text) {
    for (boolean takenOver : new boolean[] {false, true}) {
      JournalEntry.EffectRecorded e =
          new JournalEntry.EffectRecorded(RUN, text, 7, text, "k".repeat(64), takenOver);
      assertThat(
              EntryCodec.effectRecordedPayload(
                  e.surfacePath(), e.idempotencyKey(), takenOver, e.stepId(), e.attempt()))
          .isEqualTo(EntryCodec.encode(e).payload());
    }
  }

  @ParameterizedTest
  @MethodSource("awkwardTexts")
  void theHandWrittenEffectConfirmedPayloadIsTheTextEncodeWrites(String text) {
    JsonNode memo =
        JsonNodeFactory.instance
            .objectNode()
            .put("name", text)
            .set("value", JsonNodeFactory.instance.arrayNode().add(text).add(1.5).addNull());
    for (Optional<JsonNode> output : List.of(Optional.of(memo), Optional.<JsonNode>empty())) {
      JournalEntry.EffectConfirmed e =
          new JournalEntry.EffectConfirmed(RUN, text, 2, text, "k".repeat(64), output);
      assertThat(
              EntryCodec.effectConfirmedPayload(
                  e.surfacePath(),
                  e.idempotencyKey(),
                  output.map(EntryCodec::text),
                  e.stepId(),
                  e.attempt()))
          .isEqualTo(EntryCodec.encode(e).payload());
    }
  }
}
