package dev.flows.ops.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Counting a worker JVM's threads from its thread dump. */
class WorkerProcessesTest {
  private static final String CUT_SHORT =
      "{\"threadDump\": {\"threadContainers\": [{\"name\": \"ro";

  private static final String WHOLE =
      "{\"threadDump\": {\"threadContainers\": [{\"threads\": [{\"virtual\": false},"
          + " {\"virtual\": true}, {\"virtual\": true}]}]}}";

  @Test
  void aThreadDumpCutShortIsTakenAgainInsteadOfEndingTheRun() throws Exception {
    AtomicInteger dumps = new AtomicInteger();

    WorkerProcesses.Threads threads =
        WorkerProcesses.whole(
            WorkerProcesses.DUMP_ATTEMPTS,
            () ->
                WorkerProcesses.Threads.of(
                    new ObjectMapper().readTree(dumps.incrementAndGet() == 1 ? CUT_SHORT : WHOLE)));

    assertThat(threads).isEqualTo(new WorkerProcesses.Threads(1, 2));
    assertThat(dumps).hasValue(2);
  }

  @Test
  void dumpsThatNeverParseEndWithTheLastParseErrorAfterTheAttempts() {
    AtomicInteger dumps = new AtomicInteger();

    assertThatThrownBy(
            () ->
                WorkerProcesses.whole(
                    3,
                    () -> {
                      dumps.incrementAndGet();
                      return new ObjectMapper().readTree(CUT_SHORT);
                    }))
        .isInstanceOf(JsonProcessingException.class);
    assertThat(dumps).hasValue(3);
  }

  @Test
  void theThreadsOfARunningJvmAreCountedFromItsDump() throws Exception {
    WorkerProcesses.Threads threads = WorkerProcesses.threadDump(ProcessHandle.current().pid());

    assertThat(threads.platform()).isPositive();
  }
}
