package dev.flows.mcp.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.kernel.json.Jackson;
import dev.flows.kernel.mcp.McpDiagnostic;
import dev.flows.kernel.mcp.McpException;
import dev.flows.kernel.mcp.ToolCallResult;
import dev.flows.kernel.mcp.ToolDescriptor;
import io.modelcontextprotocol.client.McpAsyncClient;
import io.modelcontextprotocol.spec.McpSchema;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import reactor.core.publisher.Mono;

/** What a connection reads from the MCP SDK: the tool list, tool descriptors and call results. */
final class McpWire {
  private static final ObjectMapper JSON = Jackson.mapper();

  private McpWire() {}

  /**
   * {@code f} applied to {@code source}'s value. Cancelling the answer cancels {@code source}: a
   * derived future does not pass a cancellation back by itself, and the caller that gives up on a
   * call must still reach the request on the wire (closed stream, {@code notifications/cancelled}).
   */
  static <A, B> CompletableFuture<B> mapping(
      CompletableFuture<A> source, java.util.function.Function<? super A, ? extends B> f) {
    CompletableFuture<B> out = source.thenApply(f);
    out.whenComplete(
        (r, e) -> {
          if (out.isCancelled()) {
            source.cancel(true);
          }
        });
    return out;
  }

  /** tools/list page by page; a cursor seen twice would loop forever, so it is a protocol error. */
  static List<ToolDescriptor> listAll(McpAsyncClient c, String server, Duration listTimeout) {
    McpSchema.ServerCapabilities caps = c.getServerCapabilities();
    if (caps == null || caps.tools() == null) {
      // A server without the tools capability offers none; that is not an error.
      return List.of();
    }
    return paginate(
        server,
        cursor -> {
          McpSchema.ListToolsResult page = await(c.listTools(cursor), listTimeout, true);
          return new Page(
              page.tools().stream().map(t -> describe(server, t)).toList(), page.nextCursor());
        });
  }

  /** One tools/list page, in either revision. */
  record Page(List<ToolDescriptor> tools, String nextCursor) {}

  /**
   * Every page from the first ({@code fetch(null)}) to the last; a tool named twice is kept once,
   * and a cursor seen twice would loop forever, so it is a protocol error.
   */
  static List<ToolDescriptor> paginate(
      String server, java.util.function.Function<String, Page> fetch) {
    List<ToolDescriptor> out = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    Set<String> names = new HashSet<>();
    String cursor = null;
    do {
      Page page = fetch.apply(cursor);
      for (ToolDescriptor tool : page.tools()) {
        if (names.add(tool.name())) {
          out.add(tool);
        }
      }
      cursor = page.nextCursor();
      if (cursor != null && !seen.add(cursor)) {
        throw new McpException(
            McpDiagnostic.HANDSHAKE_REJECTED,
            server,
            "protocol error: tools/list returned cursor " + cursor + " twice",
            "the server's pagination is broken; report it to its authors");
      }
    } while (cursor != null);
    return out;
  }

  static ToolDescriptor describe(String server, McpSchema.Tool t) {
    McpSchema.ToolAnnotations a = t.annotations();
    return describe(
        server,
        t.name(),
        t.title(),
        t.description(),
        t.inputSchema(),
        t.outputSchema(),
        a == null
            ? ToolDescriptor.ToolHints.NONE
            : hints(a.readOnlyHint(), a.destructiveHint(), a.idempotentHint(), a.openWorldHint()));
  }

  static ToolDescriptor.ToolHints hints(
      Boolean readOnly, Boolean destructive, Boolean idempotent, Boolean openWorld) {
    return new ToolDescriptor.ToolHints(
        Optional.ofNullable(readOnly),
        Optional.ofNullable(destructive),
        Optional.ofNullable(idempotent),
        Optional.ofNullable(openWorld));
  }

  /** A descriptor whose schemas are the server's, key for key (never dereferenced or rewritten). */
  static ToolDescriptor describe(
      String server,
      String name,
      String title,
      String description,
      Object inputSchema,
      Object outputSchema,
      ToolDescriptor.ToolHints hints) {
    JsonNode input =
        inputSchema == null ? JsonNodeFactory.instance.objectNode() : JSON.valueToTree(inputSchema);
    return new ToolDescriptor(
        server,
        name,
        Optional.ofNullable(title),
        Optional.ofNullable(description),
        input,
        Optional.ofNullable(outputSchema).map(JSON::valueToTree),
        hints);
  }

  static ToolCallResult toResult(
      String server, String tool, McpSchema.CallToolResult r, String protocolVersion) {
    // Through the whole record: its declared List<Content> makes Jackson write each item's "type".
    return toResult(
        server,
        tool,
        Json.MAPPER.convertValue(r, JsonNode.class),
        Boolean.TRUE.equals(r.isError()),
        protocolVersion,
        List.of());
  }

  /** A result from the JSON of the server's answer. */
  static ToolCallResult toResult(
      String server,
      String tool,
      JsonNode whole,
      boolean isError,
      String protocolVersion,
      List<ToolCallResult.WireAttempt> attempts) {
    JsonNode content =
        whole.path("content").isArray()
            ? whole.get("content")
            : JsonNodeFactory.instance.arrayNode();
    JsonNode structured = whole.path("structuredContent");
    return new ToolCallResult(
        server,
        tool,
        isError,
        content,
        structured.isMissingNode() || structured.isNull()
            ? Optional.empty()
            : Optional.of(structured),
        protocolVersion,
        attempts);
  }

  static <T> T await(Mono<T> mono, Duration timeout, boolean interruptible) {
    CompletableFuture<T> f = mono.toFuture();
    try {
      return f.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      f.cancel(true);
      if (interruptible) {
        Thread.currentThread().interrupt();
      }
      throw new IllegalStateException("interrupted", e);
    } catch (TimeoutException e) {
      f.cancel(true);
      throw new IllegalStateException("timed out", e);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof RuntimeException re
          ? re
          : new IllegalStateException(e.getCause());
    }
  }
}
