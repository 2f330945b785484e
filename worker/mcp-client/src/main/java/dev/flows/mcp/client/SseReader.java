package dev.flows.mcp.client;

import java.io.IOException;
import java.io.InputStream;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A minimal text/event-stream parser: {@code id}, {@code retry}, {@code event}, {@code data}. An
 * event larger than the limit ends the read with {@link TooLarge} while it streams.
 */
final class SseReader implements AutoCloseable {
  private final InputStream body;
  private final BoundedLines in;
  private final int maxBytes;
  private String lastEventId;
  private OptionalLong retryMs = OptionalLong.empty();

  /** One dispatched event; {@code data} may be empty (a priming event that only sets an id). */
  record Event(Optional<String> id, String type, String data) {}

  /** An event that grew past the limit; the stream is not read further. */
  static final class TooLarge extends IOException {
    private final long bytes;

    TooLarge(long bytes) {
      super("an SSE event passed " + bytes + " bytes");
      this.bytes = bytes;
    }

    long bytes() {
      return bytes;
    }
  }

  SseReader(InputStream in, int maxBytes) {
    this.body = in;
    this.in = new BoundedLines(in, maxBytes);
    this.maxBytes = maxBytes;
  }

  /** The next event, or empty at end of stream. */
  Optional<Event> next() throws IOException {
    StringBuilder data = new StringBuilder();
    String type = "message";
    Optional<String> id = Optional.empty();
    boolean any = false;
    Optional<BoundedLines.Line> next;
    while ((next = in.next()).isPresent()) {
      if (next.get() instanceof BoundedLines.Line.Oversized o) {
        throw new TooLarge(o.bytes());
      }
      String line = ((BoundedLines.Line.Text) next.get()).text();
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
          if (data.length() > maxBytes) {
            throw new TooLarge(data.length());
          }
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
    body.close();
  }
}
