package dev.flows.mcp.client;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.OptionalLong;

/** A minimal text/event-stream parser: {@code id}, {@code retry}, {@code event}, {@code data}. */
final class SseReader implements AutoCloseable {
  private final BufferedReader in;
  private String lastEventId;
  private OptionalLong retryMs = OptionalLong.empty();

  /** One dispatched event; {@code data} may be empty (a priming event that only sets an id). */
  record Event(Optional<String> id, String type, String data) {}

  SseReader(InputStream in) {
    this.in = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
  }

  /** The next event, or empty at end of stream. */
  Optional<Event> next() throws IOException {
    StringBuilder data = new StringBuilder();
    String type = "message";
    Optional<String> id = Optional.empty();
    boolean any = false;
    String line;
    while ((line = in.readLine()) != null) {
      if (line.isEmpty()) {
        if (any) {
          return Optional.of(new Event(id, type, data.toString()));
        }
        continue;
      }
      if (line.startsWith(":")) {
        continue;
      }
      int colon = line.indexOf(':');
      String field = colon < 0 ? line : line.substring(0, colon);
      String value = colon < 0 ? "" : line.substring(colon + 1);
      if (value.startsWith(" ")) {
        value = value.substring(1);
      }
      switch (field) {
        case "data" -> {
          if (!data.isEmpty()) {
            data.append('\n');
          }
          data.append(value);
          any = true;
        }
        case "id" -> {
          if (!value.contains("\u0000")) {
            lastEventId = value;
            id = Optional.of(value);
            any = true;
          }
        }
        case "event" -> {
          type = value;
          any = true;
        }
        case "retry" -> {
          if (!value.isEmpty() && value.chars().allMatch(Character::isDigit)) {
            retryMs = OptionalLong.of(Long.parseLong(value));
          }
        }
        default -> {
          // Unknown fields are ignored, as the SSE spec says.
        }
      }
    }
    return Optional.empty();
  }

  Optional<String> lastEventId() {
    return Optional.ofNullable(lastEventId);
  }

  OptionalLong retryMs() {
    return retryMs;
  }

  @Override
  public void close() throws IOException {
    in.close();
  }
}
