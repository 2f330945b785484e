package dev.flows.mcp.client;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.kernel.mcp.McpServerConfigJson;
import dev.flows.kernel.mcp.McpTransportPort;
import dev.flows.mcp.testkit.Jvm;
import dev.flows.mcp.testkit.SerialisedSends;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpServerTransport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * Many callers sharing one stdio connection, as the bench's bare calls and a busy worker do. Found
 * by the bench at 16 concurrent callers on a loaded machine: the test server's SDK stdio transport
 * refused a concurrent send, which ended its session while the process lived on, so every later
 * call went unanswered.
 */
class StdioConcurrentCallsTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final int CALLERS = 32;
  private static final int CALLS_EACH = 400;
  private final McpSessions sessions =
      new McpSessions(McpClientConfig.DEFAULTS, McpCredentials.fromEnvironment());
  private final JsonNode connection =
      McpServerConfigJson.write(Jvm.stdioServer("many", List.of(), Map.of()));

  @AfterEach
  void close() {
    sessions.close();
  }

  @Test
  void everyCallOfManyConcurrentCallersOverOneStdioConnectionGetsItsOwnAnswer() throws Exception {
    McpTransportPort s = sessions.session(connection);
    s.callTool("echo", Map.of("text", "first"), Map.of()).get(WAIT.toSeconds(), TimeUnit.SECONDS);
    ConcurrentLinkedQueue<String> wrong = new ConcurrentLinkedQueue<>();
    int answered =
        together(
            CALLERS,
            caller -> {
              int mine = 0;
              for (int k = 0; k < CALLS_EACH; k++) {
                String text = caller + "-" + k;
                try {
                  String got =
                      s.callTool("echo", Map.of("text", text), Map.of())
                          .get(WAIT.toSeconds(), TimeUnit.SECONDS)
                          .text();
                  if (got.equals(text)) {
                    mine++;
                  } else {
                    wrong.add(text + " was answered " + got);
                  }
                } catch (Exception e) {
                  // One unanswered call means the server has gone silent: stop this caller.
                  wrong.add(text + " failed: " + e);
                  break;
                }
              }
              return mine;
            });
    assertThat(wrong).as("calls lost or answered with another call's result").isEmpty();
    assertThat(answered).isEqualTo(CALLERS * CALLS_EACH);
  }

  @Test
  void aTestServersSendsTakeTurnsSoItsOutgoingQueueNeverSeesTwoSenders() throws Exception {
    AtomicInteger sending = new AtomicInteger();
    AtomicInteger overlaps = new AtomicInteger();
    McpServerTransport overlapSpotting =
        new McpServerTransport() {
          @Override
          public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
            return Mono.fromRunnable(
                () -> {
                  if (sending.incrementAndGet() > 1) {
                    overlaps.incrementAndGet();
                  }
                  try {
                    Thread.sleep(2);
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                  sending.decrementAndGet();
                });
          }

          @Override
          public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
            throw new UnsupportedOperationException();
          }

          @Override
          public Mono<Void> closeGracefully() {
            return Mono.empty();
          }
        };
    McpServerTransport serial = SerialisedSends.oneAtATime(overlapSpotting);
    McpSchema.JSONRPCMessage note = new McpSchema.JSONRPCNotification("2.0", "ping", Map.of());
    int sent =
        together(
            16,
            caller -> {
              for (int k = 0; k < 20; k++) {
                serial.sendMessage(note).block(WAIT);
              }
              return 20;
            });
    assertThat(sent).isEqualTo(16 * 20);
    assertThat(overlaps).hasValue(0);
  }

  /** Runs {@code n} callers started at once; the sum of what they return. */
  private static int together(int n, Caller caller) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(n);
    try {
      CountDownLatch go = new CountDownLatch(1);
      List<Future<Integer>> done = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        int id = i;
        done.add(
            pool.submit(
                (Callable<Integer>)
                    () -> {
                      go.await();
                      return caller.run(id);
                    }));
      }
      go.countDown();
      int total = 0;
      for (Future<Integer> f : done) {
        total += f.get(10, TimeUnit.MINUTES);
      }
      return total;
    } finally {
      pool.shutdownNow();
    }
  }

  private interface Caller {
    int run(int id) throws Exception;
  }
}
