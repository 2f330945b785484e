package dev.flows.ops.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The tasks section's reading of the task server's events log and of a worker's thread dump, on
 * logs written here.
 */
class TaskPollsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long HINT = 2_000;
  private static final long TASK = 5_000;

  private static JsonNode created(String task, long at) {
    return JSON.createObjectNode().put("event", "task.created").put("taskId", task).put("at", at);
  }

  private static JsonNode get(String task, long at, String status) {
    return JSON.createObjectNode()
        .put("event", "tasks/get")
        .put("taskId", task)
        .put("status", status)
        .put("at", at);
  }

  @Test
  void pollsAtTheHintHaveNoShortGapAndThePlateauRunsFromTheLastCreationToTheFirstEnd() {
    List<JsonNode> log = new ArrayList<>();
    log.add(JSON.createObjectNode().put("event", "tools/call").put("at", 0));
    log.add(created("a", 0));
    log.add(created("b", 1_000));
    log.add(get("a", 2_000, "working"));
    log.add(get("b", 3_000, "working"));
    log.add(get("a", 4_100, "working"));
    log.add(get("b", 5_000, "working"));
    log.add(get("a", 6_100, "completed"));
    log.add(get("b", 7_000, "completed"));

    TaskPolls p = TaskPolls.of(log, HINT, TASK);

    assertThat(p.tasks()).isEqualTo(2);
    assertThat(p.polls()).isEqualTo(6);
    assertThat(p.pollsPerTask()).isEqualTo(3.0);
    assertThat(p.completed()).isEqualTo(2);
    assertThat(p.gaps()).isEqualTo(6);
    assertThat(p.minGapMs()).isEqualTo(2_000);
    assertThat(p.medianGapMs()).isEqualTo(2_000);
    assertThat(p.belowHint()).isZero();
    // From b's creation (1 s) to the first poll that saw a task end (6.1 s): 4 polls in 5.1 s.
    assertThat(p.plateauSeconds()).isEqualTo(5.1);
    assertThat(p.plateauPolls()).isEqualTo(4);
    assertThat(p.plateauRate()).isLessThanOrEqualTo(p.hintedRate(HINT));
    // a ended at 5 s, seen at 6.1 s; b at 6 s, seen at 7 s.
    assertThat(p.endLagMedianMs()).isEqualTo(1_000);
    assertThat(p.endLagMaxMs()).isEqualTo(1_100);
  }

  @Test
  void aPollSoonerThanTheHintLessTheToleranceIsCountedShortAndOneWithinItIsNot() {
    List<JsonNode> log =
        List.of(
            created("a", 0),
            get("a", 1_900, "working"), // 5 % short of the hint: within the tolerance
            get("a", 3_000, "working"), // 1,100 ms after the last: short
            get("a", 5_000, "completed"));

    TaskPolls p = TaskPolls.of(log, HINT, TASK);

    assertThat(p.belowHint()).isEqualTo(1);
    assertThat(p.minGapMs()).isEqualTo(1_100);
  }

  @Test
  void aTaskThatEndedBeforeTheLastWasCreatedLeavesNoPlateau() {
    List<JsonNode> log =
        List.of(created("a", 0), get("a", 2_000, "completed"), created("b", 3_000));

    TaskPolls p = TaskPolls.of(log, HINT, TASK);

    assertThat(p.plateauSeconds()).isZero();
    assertThat(p.plateauRate()).isNaN();
  }

  @Test
  void aThreadDumpIsCountedIntoPlatformAndVirtualThreads() throws Exception {
    JsonNode dump =
        JSON.readTree(
            """
            {"threadDump": {"threadContainers": [
              {"container": "<root>", "threads": [
                {"tid": "1", "name": "main"},
                {"tid": "2", "name": "", "virtual": true},
                {"tid": "3", "name": "", "virtual": true}]},
              {"container": "ForkJoinPool-1", "threads": [
                {"tid": "4", "name": "ForkJoinPool-1-worker-1"}]},
              {"container": "empty", "threads": []}]}}
            """);

    assertThat(WorkerProcesses.Threads.of(dump)).isEqualTo(new WorkerProcesses.Threads(2, 2));
  }
}
