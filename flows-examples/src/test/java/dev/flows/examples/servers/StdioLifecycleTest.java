package dev.flows.examples.servers;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class StdioLifecycleTest {
  private static final Duration LONG_GRACE = Duration.ofMinutes(5);

  private static InputStream input(String text) {
    return new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void atEndOfInputItWaitsForTheAnswerToARequestAlreadyReadThenExits() throws Exception {
    CountDownLatch exited = new CountDownLatch(1);
    StdioLifecycle life = new StdioLifecycle(LONG_GRACE, exited::countDown);
    InputStream sdkIn =
        life.watch(
            input(
                "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\"}\n\n"
                    + "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"));
    OutputStream sdkOut = life.watch(new ByteArrayOutputStream());
    BufferedReader r = new BufferedReader(new InputStreamReader(sdkIn, StandardCharsets.UTF_8));
    assertThat(r.readLine()).contains("\"id\":7");
    // The blank line is not passed on; the notification is.
    assertThat(r.readLine()).contains("notifications/initialized");
    assertThat(exited.await(200, TimeUnit.MILLISECONDS)).isFalse();
    sdkOut.write("{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\n".getBytes(StandardCharsets.UTF_8));
    sdkOut.flush();
    assertThat(exited.await(60, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void anUnansweredRequestDelaysTheExitOnlyUntilTheGraceEnds() throws Exception {
    CountDownLatch exited = new CountDownLatch(1);
    StdioLifecycle life = new StdioLifecycle(Duration.ofMillis(50), exited::countDown);
    life.watch(input("{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"method\":\"tools/call\"}\n"));
    assertThat(exited.await(60, TimeUnit.SECONDS)).isTrue();
  }
}
