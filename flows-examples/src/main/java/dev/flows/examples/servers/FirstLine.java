package dev.flows.examples.servers;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;

/**
 * The first line a stdio client wrote, read byte by byte (nothing after it is consumed), with the
 * JSON-RPC method it names ("" when it names none) and the stream as if it had not been read.
 */
record FirstLine(byte[] line, String method, InputStream rest) {
  /** A client's first message is small; a longer first line is handed on without a look. */
  private static final int MAX_BYTES = 1 << 20;

  static FirstLine read(InputStream in) throws IOException {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    int b;
    while ((b = in.read()) >= 0) {
      buf.write(b);
      if (b == '\n' || buf.size() >= MAX_BYTES) {
        break;
      }
    }
    byte[] line = buf.toByteArray();
    String method = "";
    try {
      JsonNode n = ToolKit.JSON.readTree(line);
      method = n == null ? "" : n.path("method").asText("");
    } catch (IOException e) {
      // Not JSON: the transport that reads it next answers the parse error.
    }
    return new FirstLine(line, method, in);
  }

  InputStream replayed() {
    return new SequenceInputStream(new ByteArrayInputStream(line), rest);
  }
}
