package dev.flows.sdk.compile;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A flow compile whose thread is interrupted (a worker cancels an attempt whose lease it lost while
 * the body's flow compiles) must not break the compiler for the rest of the process: javac keeps
 * the JDK's {@code ct.sym} (what {@code --release} compiles against) open process-wide, and an
 * interrupt during its read closes that channel for every later compile.
 */
class FlowSourceInterruptTest {
  private static final String SOURCE =
      """
      import com.fasterxml.jackson.databind.JsonNode;
      import dev.flows.sdk.*;

      public class Interrupted implements Flow<JsonNode, JsonNode> {
        public FlowHeader header() {
          return FlowHeader.named("interrupted").version("1").build();
        }

        public JsonNode run(Ctx f, JsonNode input) {
          return input;
        }
      }
      """;

  @Test
  void compilesInterruptedAtAnyMomentLeaveTheCompilerWorkingForTheNextCompile() throws Exception {
    List<Throwable> seen = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      Thread t =
          Thread.ofVirtual()
              .start(
                  () -> {
                    try {
                      FlowSource.compile(
                          "interrupted-" + Thread.currentThread().threadId(), SOURCE);
                    } catch (RuntimeException e) {
                      synchronized (seen) {
                        seen.add(e);
                      }
                    }
                  });
      Thread.sleep(5L + i * 40L);
      t.interrupt();
      t.join();
    }

    FlowSource.Compiled after = FlowSource.compile("after", SOURCE);

    assertThat(after.className()).isEqualTo("Interrupted");
  }
}
