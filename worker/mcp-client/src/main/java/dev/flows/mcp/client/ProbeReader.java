package dev.flows.mcp.client;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.json.Jackson;
import dev.flows.kernel.mcp.McpProtocol;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Reads a stdio server's answer to the {@code server/discover} probe, one byte at a time so that
 * nothing after the answer's line is consumed: whoever reads the stream next (the 2025 client or
 * the 2026-07-28 one) gets every later byte.
 */
final class ProbeReader {
  private ProbeReader() {}

  /**
   * True when the line answering {@code id} is a result listing 2026-07-28. A line longer than
   * {@code maxBytes} ends the probe (a 2025 server), so a server cannot fill the heap here either.
   */
  static boolean answersModern(InputStream in, String id, Duration wait, int maxBytes)
      throws IOException {
    CompletableFuture<Boolean> answer =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                for (String line = line(in, maxBytes); line != null; line = line(in, maxBytes)) {
                  JsonNode m = parse(line);
                  if (m != null && id.equals(m.path("id").asText(null))) {
                    return contains(m.path("result").path("supportedVersions"));
                  }
                }
                return false;
              } catch (IOException e) {
                return false;
              }
            },
            r -> Thread.ofVirtual().name("mcp-discover-probe").start(r));
    try {
      return answer.get(wait.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      // The reader would steal the handshake's answer: a server that stays silent is not probed
      // further; it is spoken to in 2025 on a new start.
      throw new IOException("no answer to server/discover within " + wait);
    } catch (ExecutionException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
  }

  private static boolean contains(JsonNode versions) {
    for (JsonNode v : versions) {
      if (McpProtocol.MODERN.equals(v.asText())) {
        return true;
      }
    }
    return false;
  }

  private static JsonNode parse(String line) {
    try {
      return Jackson.mapper().readTree(line);
    } catch (IOException e) {
      return null;
    }
  }

  private static String line(InputStream in, int maxBytes) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    int c;
    while ((c = in.read()) >= 0) {
      if (c == '\n') {
        return b.toString(StandardCharsets.UTF_8);
      }
      if (b.size() >= maxBytes) {
        throw new IOException("a line longer than " + maxBytes + " bytes");
      }
      b.write(c);
    }
    return b.size() == 0 ? null : b.toString(StandardCharsets.UTF_8);
  }
}
