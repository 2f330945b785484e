package dev.flows.kernel.journal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.journal.JournalEntry.EffectRef;
import dev.flows.kernel.spec.StepKind;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The stored payload and the timeline are two views of one codec: a field added to an entry and to
 * one view only fails here.
 */
class EntryJsonTest {
  private static final RunRef RUN = new RunRef("run_json");
  private static final JsonNode OUT = JsonNodeFactory.instance.objectNode().put("ok", true);
  private static final Instant T = Instant.parse("2026-11-29T12:00:00.123456Z");

  static Stream<JournalEntry> everyEntryType() {
    JsonNode spec = JsonNodeFactory.instance.objectNode().put("name", "json");
    return Stream.of(
        new JournalEntry.RunSpawned(
            RUN,
            spec,
            "h",
            Optional.of(new RunRef("parent")),
            "key",
            "test",
            Optional.of(new RunRef("before"))),
        new JournalEntry.RunSpawned(RUN, spec, "h", Optional.empty(), "key", "test"),
        new JournalEntry.RunCancelRequested(RUN, "operator"),
        new JournalEntry.StepAttemptStarted(
            RUN, "a", 3, StepKind.AGENT, "k", "lease_1", T, new WorkerId("w-1")),
        new JournalEntry.StepCompleted(
            RUN,
            "a",
            1,
            CompletionReason.SUCCESS,
            Disposition.STEP_DONE,
            Optional.of(OUT),
            List.of(new EffectRef("/mcp/x", "k")),
            Optional.of(OUT),
            Optional.of(T)),
        new JournalEntry.StepCompleted(
            RUN,
            "a",
            2,
            CompletionReason.LEASE_EXPIRED,
            Disposition.RETRY,
            Optional.empty(),
            List.of(),
            Optional.empty(),
            Optional.empty()),
        new JournalEntry.EffectRecorded(RUN, "b", 2, "/mcp/x", "k", true),
        new JournalEntry.EffectConfirmed(RUN, "b", 2, "/mcp/x", "k", Optional.of(OUT)),
        new JournalEntry.EffectConfirmed(RUN, "b", 2, "/mcp/x", "k", Optional.empty()),
        new JournalEntry.RunCompleted(RUN, RunCompletionReason.STEP_FAILED, Optional.of("a")),
        new JournalEntry.RunCompleted(RUN, RunCompletionReason.SUCCESS, Optional.empty()),
        new JournalEntry.RunResumed(RUN, "operator"),
        new JournalEntry.RunUpgraded(RUN, "1", "flow:triage@1", "2", "flow:triage@2", "operator"),
        new JournalEntry.StepResolved(RUN, "b", true, Optional.of(OUT), "operator"),
        new JournalEntry.StepResolved(RUN, "b", false, Optional.empty(), "operator"),
        new JournalEntry.StepAnswered(RUN, "b", OUT, "operator"),
        new JournalEntry.EffectTask(
            RUN,
            "b",
            2,
            "/mcp/s/t",
            "k",
            new TaskNote(
                "t-1", "working", Optional.of("50%"), Optional.of(1000L), Optional.of(9L), "v1")),
        new JournalEntry.EffectTask(
            RUN,
            "b",
            3,
            "/mcp/s/t",
            "k",
            new TaskNote("t-1", "done", Optional.empty(), Optional.empty(), Optional.empty(), "v")),
        new JournalEntry.EffectTaskCancel(RUN, "b", "/mcp/s/t", "t-1", "run canceled", "sweeper"));
  }

  @Test
  void theSamplesCoverEveryEntryType() {
    assertThat(everyEntryType().<Class<?>>map(Object::getClass).distinct())
        .containsExactlyInAnyOrder(JournalEntry.class.getPermittedSubclasses());
  }

  @ParameterizedTest
  @MethodSource("everyEntryType")
  void everyPayloadReadsBackAsTheSameEntry(JournalEntry entry) {
    assertThat(EntryJson.decode(RUN, entry.type(), EntryJson.payload(entry))).isEqualTo(entry);
  }

  @ParameterizedTest
  @MethodSource("everyEntryType")
  void theTimelineShowsEveryPayloadFieldWithTheSameValue(JournalEntry entry) {
    ObjectNode payload = EntryJson.payload(entry);
    ObjectNode timeline = EntryJson.timeline(new JournalRecord(7, T, entry));
    ObjectNode flat = timeline.deepCopy();
    if (flat.get("task") instanceof ObjectNode task) {
      flat.remove("task");
      flat.setAll(task);
    }
    List<String> shown = new ArrayList<>();
    payload
        .properties()
        .forEach(
            f -> {
              if (!EntryJson.timelineOmits(entry.type()).contains(f.getKey())) {
                assertThat(flat.get(f.getKey())).as(f.getKey()).isEqualTo(f.getValue());
                shown.add(f.getKey());
              }
            });
    assertThat(timeline.get("type").asText()).isEqualTo(entry.type());
    assertThat(timeline.get("runId").asText()).isEqualTo(RUN.value());
    assertThat(timeline.get("seq").asLong()).isEqualTo(7);
    // Whatever else the timeline shows is an absent optional of the payload, as null.
    flat.properties().stream()
        .filter(f -> !List.of("seq", "at", "type", "runId").contains(f.getKey()))
        .filter(f -> !shown.contains(f.getKey()))
        .forEach(f -> assertThat(f.getValue().isNull()).as(f.getKey()).isTrue());
  }
}
