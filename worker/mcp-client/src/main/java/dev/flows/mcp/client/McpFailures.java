package dev.flows.mcp.client;

import dev.flows.kernel.mcp.McpDiagnostic;
import dev.flows.kernel.mcp.McpException;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeoutException;

/** The diagnostics of a connection's failures, each with the fix it names. */
final class McpFailures {
  private McpFailures() {}

  static McpException disconnected(String server, String why) {
    return new McpException(McpDiagnostic.MCP_DISCONNECTED, server, why, "connect first");
  }

  /** Why a connect failed: {@code lost}, the loss the transport reported while it ran. */
  static McpException handshake(
      String server, Throwable e, Optional<McpException> lost, Duration connectTimeout) {
    Optional<McpException> ours = find(e, McpException.class);
    if (ours.isPresent()) {
      return ours.get();
    }
    Optional<McpDiagnostic> local =
        find(e, McpError.class)
            .flatMap(rpc -> localDiagnostic(rpc.getJsonRpcError()))
            .or(
                () ->
                    find(e, io.modelcontextprotocol.modern.McpException.class)
                        .map(io.modelcontextprotocol.modern.McpException::error)
                        .flatMap(err -> localDiagnostic(err.code(), err.data())));
    if (local.isPresent()) {
      return new McpException(
          local.get(), server, McpError.aggregateExceptionMessages(e), McpHttp.fixFor(local.get()));
    }
    if (lost.isPresent()) {
      return new McpException(
          McpDiagnostic.SPAWN_FAILED,
          server,
          "server went away during the handshake: " + lost.get().getMessage(),
          "run the server command by hand to see why it exits",
          e);
    }
    if (find(e, TimeoutException.class).isPresent()) {
      return new McpException(
          McpDiagnostic.HANDSHAKE_TIMEOUT,
          server,
          "no initialize answer within " + connectTimeout,
          "check that the command is an MCP server speaking on stdout, or raise connectTimeout",
          e);
    }
    if (find(e, InterruptedException.class).isPresent()) {
      return disconnected(server, "stopped while connecting");
    }
    return new McpException(
        McpDiagnostic.HANDSHAKE_REJECTED,
        server,
        "initialize refused: " + McpError.aggregateExceptionMessages(e),
        "check the server URL/command and protocol version",
        e);
  }

  /** Why a tools/call failed, as the diagnostic a caller acts on. */
  static McpException call(String server, String tool, Throwable e) {
    Optional<McpException> ours = find(e, McpException.class);
    if (ours.isPresent()) {
      return ours.get();
    }
    Optional<McpError> rpc = find(e, McpError.class);
    if (rpc.isPresent()) {
      McpSchema.JSONRPCResponse.JSONRPCError err = rpc.get().getJsonRpcError();
      String message = err == null ? rpc.get().getMessage() : err.message();
      Optional<McpDiagnostic> local = localDiagnostic(err);
      if (local.isPresent()) {
        return new McpException(local.get(), server, tool + ": " + message, "", e);
      }
      return rpcError(server, tool, err == null ? null : err.code(), message, e);
    }
    return new McpException(
        McpDiagnostic.MCP_RESULT_UNAVAILABLE,
        server,
        tool + ": no result (" + McpError.aggregateExceptionMessages(e) + ")",
        "the call may or may not have run; retry only if the tool is idempotent",
        e);
  }

  /**
   * {@code payload_too_large} when the SDK's 2026-07-28 HTTP transport cut an answer off at its
   * {@code maxResponseSize} (set to {@code maxResultBytes}): it says so only in its exception's
   * message, the one place to recognise it.
   */
  static Optional<McpException> cutOff(String server, String tool, Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof io.modelcontextprotocol.spec.McpTransportException
          && t.getMessage() != null
          && t.getMessage().contains(SDK_SIZE_LIMIT)) {
        return Optional.of(
            new McpException(
                McpDiagnostic.PAYLOAD_TOO_LARGE,
                server,
                tool + ": " + t.getMessage(),
                McpHttp.fixFor(McpDiagnostic.PAYLOAD_TOO_LARGE),
                e));
      }
    }
    return Optional.empty();
  }

  /** What the SDK's HTTP transport says when a body, line or SSE event passes its size limit. */
  private static final String SDK_SIZE_LIMIT = "exceeds the maximum allowed size of";

  /** Why a tools/call failed on the 2026-07-28 client, as the diagnostic a caller acts on. */
  static McpException modernCall(String server, String tool, Throwable e) {
    Optional<McpException> ours = find(e, McpException.class).or(() -> cutOff(server, tool, e));
    if (ours.isPresent()) {
      return ours.get();
    }
    Optional<io.modelcontextprotocol.modern.McpException> rpc =
        find(e, io.modelcontextprotocol.modern.McpException.class);
    if (rpc.isPresent()) {
      var err = rpc.get().error();
      String message = err == null ? rpc.get().getMessage() : err.message();
      Optional<McpDiagnostic> local =
          err == null ? Optional.empty() : localDiagnostic(err.code(), err.data());
      if (local.isPresent()) {
        return new McpException(local.get(), server, tool + ": " + message, "", e);
      }
      return rpcError(server, tool, err == null ? null : err.code(), message, e);
    }
    if (find(e, io.modelcontextprotocol.modern.client.transport.McpHttpStatusException.class)
        .filter(h -> h.statusCode() == 401 || h.statusCode() == 403)
        .isPresent()) {
      return new McpException(
          McpDiagnostic.AUTH_FAILED,
          server,
          tool + ": " + e.getMessage(),
          "check the server's credentials",
          e);
    }
    return new McpException(
        McpDiagnostic.MCP_RESULT_UNAVAILABLE,
        server,
        tool + ": no result (" + e + ")",
        "the call may or may not have run; retry only if the tool is idempotent",
        e);
  }

  /** A JSON-RPC error answer to a call: an unknown tool, or the tool's own error. */
  static McpException rpcError(
      String server, String tool, Integer code, String message, Throwable e) {
    boolean unknown =
        Integer.valueOf(McpSchema.ErrorCodes.INVALID_PARAMS).equals(code)
            && message != null
            && message.toLowerCase(java.util.Locale.ROOT).contains("unknown tool");
    return new McpException(
        unknown ? McpDiagnostic.MCP_UNKNOWN_TOOL : McpDiagnostic.MCP_TOOL_ERROR,
        server,
        tool + ": " + message,
        unknown ? "refresh the tool list" : "",
        e);
  }

  /** An answer our own transport made up (e.g. a stream that could not be resumed). */
  private static Optional<McpDiagnostic> localDiagnostic(
      McpSchema.JSONRPCResponse.JSONRPCError err) {
    return err == null ? Optional.empty() : localDiagnostic(err.code(), err.data());
  }

  /** The diagnostic of an answer our own transport made up, from its error's code and data. */
  static Optional<McpDiagnostic> localDiagnostic(Integer code, Object errorData) {
    if (code == null
        || code != StreamableHttpTransport.LOCAL_ERROR
        || !(errorData instanceof Map<?, ?> data)) {
      return Optional.empty();
    }
    Object wire = data.get(StreamableHttpTransport.DIAGNOSTIC_KEY);
    return java.util.Arrays.stream(McpDiagnostic.values())
        .filter(d -> d.wire().equals(wire))
        .findFirst();
  }

  static <T extends Throwable> Optional<T> find(Throwable e, Class<T> type) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (type.isInstance(t)) {
        return Optional.of(type.cast(t));
      }
    }
    return Optional.empty();
  }
}
