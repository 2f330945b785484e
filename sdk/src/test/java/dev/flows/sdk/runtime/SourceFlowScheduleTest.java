package dev.flows.sdk.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flows.kernel.journal.InMemoryJournal;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.kernel.schedule.ScheduleEntry;
import dev.flows.kernel.schedule.ScheduleRecord;
import dev.flows.mcp.client.McpCredentials;
import dev.flows.sdk.compile.FlowSource;
import dev.flows.worker.WorkerConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A worker given a flow directory (as {@code flows worker --flows DIR}) applies the schedule a
 * single-file flow's header declares and starts its ticks as {@code flows run FILE} starts it.
 */
class SourceFlowScheduleTest {
  @TempDir Path dir;

  private static final String SOURCE =
      """
      import com.fasterxml.jackson.databind.JsonNode;
      import com.fasterxml.jackson.databind.node.JsonNodeFactory;
      import dev.flows.sdk.*;
      import java.time.Duration;

      public class Ticking implements Flow<JsonNode, JsonNode> {
        public FlowHeader header() {
          return FlowHeader.named("file-ticks")
              .schedule(Schedule.every(Duration.ofSeconds(1)).overlap("allow-all"))
              .build();
        }

        public JsonNode run(Ctx f, JsonNode input) {
          return JsonNodeFactory.instance.objectNode().put("ticked", true);
        }
      }
      """;

  @Test
  void aSingleFileFlowWithAOneSecondScheduleGetsRunsOfItsSourceFromTheWorkerGivenItsDirectory()
      throws Exception {
    // A fresh comment: a hash no other test in this JVM admitted.
    String source = "// " + UUID.randomUUID() + "\n" + SOURCE;
    Path file = Files.writeString(dir.resolve("ticking.flow.java"), source);
    Files.writeString(dir.resolve("other.flow.java"), "// not a flow: never compiled here\n");
    InMemoryJournal journal = new InMemoryJournal(Clock.systemUTC());
    try (FlowsEngine engine =
        new FlowsEngine(
            journal,
            WorkerConfig.defaults().toBuilder().pollInterval(Duration.ofMillis(50)).build(),
            SdkConfig.DEFAULTS,
            McpClientConfig.DEFAULTS,
            McpCredentials.fromEnvironment())) {
      engine.acceptSourcesUnder(List.of(dir)).startWorker();
      long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (succeeded(journal).size() < 2 && System.nanoTime() < until) {
        Thread.sleep(100);
      }
    }

    List<RunSnapshot> runs = succeeded(journal);
    assertThat(runs).hasSizeGreaterThanOrEqualTo(2);
    assertThat(journal.schedule("file-ticks").orElseThrow().definition().flow())
        .isEqualTo("file-ticks");
    List<ScheduleRecord> entries = journal.scheduleEntries("file-ticks");
    assertThat(entries.getFirst().entry().type()).isEqualTo("schedule.created");
    assertThat(entries.getFirst().by()).startsWith("worker:");
    RunSnapshot run = runs.getFirst();
    assertThat(run.admissionKey()).startsWith("schedule:file-ticks:");
    // Lowered as `flows run FILE` lowers it: the journal carries the file's source and hash.
    String spec = run.spec().toString();
    assertThat(spec).contains(FlowSource.hash(source)).contains(file.toString());
  }

  private static List<RunSnapshot> succeeded(InMemoryJournal journal) {
    return journal.scheduleEntries("file-ticks").stream()
        .map(ScheduleRecord::entry)
        .filter(ScheduleEntry.TickStarted.class::isInstance)
        .map(e -> ((ScheduleEntry.TickStarted) e).runId())
        .map(journal::run)
        .flatMap(java.util.Optional::stream)
        .filter(r -> r.status() == RunStatus.SUCCEEDED)
        .toList();
  }
}
