package dev.flows.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.kernel.journal.CompletionReason;
import dev.flows.kernel.journal.Disposition;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.JournalEntry.EffectRef;
import dev.flows.kernel.journal.JournalRecord;
import dev.flows.kernel.journal.RunCompletionReason;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.TaskNote;
import dev.flows.kernel.journal.WorkerId;
import dev.flows.kernel.spec.StepKind;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The timeline of {@code runs show --json} (and {@code runs watch --json}), one object per journal
 * entry, pinned field for field and in order against a golden file: scripts parse it, so a change
 * of shape must be a deliberate edit of {@code timeline-golden.jsonl}.
 */
class TimelineJsonTest {
  private static final RunRef RUN = new RunRef("run_timeline");
  private static final JsonNode OUT = JsonNodeFactory.instance.objectNode().put("ok", true);
  private static final Instant T = Instant.parse("2026-11-29T12:00:00.123456Z");

  static List<JournalEntry> everyEntryType() {
    JsonNode spec = JsonNodeFactory.instance.objectNode().put("name", "timeline");
    TaskNote working =
        new TaskNote(
            "t-1",
            "working",
            Optional.of("50%"),
            Optional.of(1000L),
            Optional.of(3_600_000L),
            "v1");
    TaskNote done =
        new TaskNote(
            "t-1", "completed", Optional.empty(), Optional.empty(), Optional.empty(), "v2");
    return List.of(
        new JournalEntry.RunSpawned(
            RUN,
            spec,
            "h",
            Optional.of(new RunRef("parent")),
            "key",
            "test",
            Optional.of(new RunRef("earlier"))),
        new JournalEntry.RunSpawned(RUN, spec, "h", Optional.empty(), "key", "test"),
        new JournalEntry.RunCancelRequested(RUN, "operator"),
        new JournalEntry.StepAttemptStarted(
            RUN, "a", 3, StepKind.AGENT, "k1", "lease_1", T, new WorkerId("w-1")),
        new JournalEntry.StepCompleted(
            RUN,
            "a",
            1,
            CompletionReason.SUCCESS,
            Disposition.STEP_DONE,
            Optional.of(OUT),
            List.of(new EffectRef("/mcp/x", "k2")),
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
            Optional.of(T)),
        new JournalEntry.EffectRecorded(RUN, "b", 2, "/mcp/x", "k3", true),
        new JournalEntry.EffectConfirmed(RUN, "b", 2, "/mcp/x", "k3", Optional.of(OUT)),
        new JournalEntry.EffectConfirmed(RUN, "b", 2, "/mcp/x", "k3", Optional.empty()),
        new JournalEntry.RunCompleted(RUN, RunCompletionReason.STEP_FAILED, Optional.of("a")),
        new JournalEntry.RunCompleted(RUN, RunCompletionReason.SUCCESS, Optional.empty()),
        new JournalEntry.RunResumed(RUN, "operator"),
        new JournalEntry.RunUpgraded(RUN, "1", "flow-body/1", "2", "flow-body/2", "flows-cli:ann"),
        new JournalEntry.StepResolved(RUN, "b", true, Optional.of(OUT), "operator"),
        new JournalEntry.StepResolved(RUN, "b", false, Optional.empty(), "operator"),
        new JournalEntry.StepAnswered(RUN, "b", OUT, "operator"),
        new JournalEntry.EffectTask(RUN, "b", 2, "/mcp/s/t", "k4", working),
        new JournalEntry.EffectTask(RUN, "b", 3, "/mcp/s/t", "k4", done),
        new JournalEntry.EffectTaskCancel(RUN, "b", "/mcp/s/t", "t-1", "run canceled", "sweeper"));
  }

  @Test
  void everyEntryTypeReadsInTheTimelineExactlyAsTheGoldenFileHoldsIt() throws IOException {
    List<String> actual = new ArrayList<>();
    long seq = 1;
    for (JournalEntry e : everyEntryType()) {
      actual.add(Session.JSON.writeValueAsString(RunJson.entry(new JournalRecord(seq++, T, e))));
    }
    assertThat(String.join("\n", actual)).isEqualTo(golden());
  }

  @Test
  void theGoldenFileCoversEveryKindOfJournalEntry() throws IOException {
    List<String> types =
        Arrays.stream(JournalEntry.class.getPermittedSubclasses())
            .map(c -> c.getSimpleName())
            .toList();
    List<String> covered =
        everyEntryType().stream().map(e -> e.getClass().getSimpleName()).distinct().toList();
    assertThat(covered).containsExactlyInAnyOrderElementsOf(types);
    assertThat(golden().lines().count()).isEqualTo(everyEntryType().size());
  }

  private static String golden() throws IOException {
    try (InputStream in = TimelineJsonTest.class.getResourceAsStream("timeline-golden.jsonl")) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
    }
  }
}
