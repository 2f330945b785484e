package dev.flows.mcp.testkit;

import dev.flows.kernel.mcp.McpTransportPort;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReference;

/** The tools of our SDK-built test servers (stdio and HTTP share them). */
public final class TestTools {
  private TestTools() {}

  private static Map<String, Object> schema(Map<String, Object> properties, List<String> required) {
    return Map.of("type", "object", "properties", properties, "required", required);
  }

  private static synchronized void append(java.nio.file.Path p, String line) throws IOException {
    java.nio.file.Files.writeString(
        p,
        line,
        java.nio.file.StandardOpenOption.CREATE,
        java.nio.file.StandardOpenOption.APPEND,
        java.nio.file.StandardOpenOption.SYNC);
  }

  private static CallToolResult text(String s) {
    return CallToolResult.builder().addTextContent(s).isError(false).build();
  }

  private static SyncToolSpecification tool(
      String name,
      Map<String, Object> schema,
      McpSchema.ToolAnnotations annotations,
      java.util.function.Function<Map<String, Object>, CallToolResult> body) {
    McpSchema.Tool.Builder t =
        McpSchema.Tool.builder().name(name).description(name + " test tool").inputSchema(schema);
    if (annotations != null) {
      t.annotations(annotations);
    }
    return SyncToolSpecification.builder()
        .tool(t.build())
        .callHandler((ex, req) -> body.apply(req.arguments() == null ? Map.of() : req.arguments()))
        .build();
  }

  /**
   * echo, add, noop, env, pid, sleep, fail, die, spawn_grandchild, add_tool, meta, ledger, timed.
   */
  public static List<SyncToolSpecification> all(AtomicReference<McpSyncServer> self) {
    List<SyncToolSpecification> tools = new ArrayList<>();
    Map<String, Object> none = schema(Map.of(), List.of());
    basic(tools, none);
    processes(tools, none);
    tools.add(addTool(self, none));
    tools.add(meta(none));
    tools.add(ledger(none));
    tools.add(timed());
    tools.add(askLive());
    return tools;
  }

  /** echo, add, noop, env, pid, sleep and fail: answers from the arguments alone. */
  private static void basic(List<SyncToolSpecification> tools, Map<String, Object> none) {
    tools.add(
        tool(
            "echo",
            schema(Map.of("text", Map.of("type", "string")), List.of("text")),
            new McpSchema.ToolAnnotations("Echo", true, false, true, false, null),
            a -> text(String.valueOf(a.get("text")))));
    tools.add(
        tool(
            "add",
            schema(
                Map.of("a", Map.of("type", "number"), "b", Map.of("type", "number")),
                List.of("a", "b")),
            null,
            a ->
                text(
                    String.valueOf(
                        ((Number) a.get("a")).longValue() + ((Number) a.get("b")).longValue()))));
    tools.add(tool("noop", none, null, a -> text("ok")));
    tools.add(
        tool(
            "env",
            none,
            null,
            a -> text(String.join(",", new TreeSet<>(System.getenv().keySet())))));
    tools.add(tool("pid", none, null, a -> text(String.valueOf(ProcessHandle.current().pid()))));
    tools.add(
        tool(
            "sleep",
            schema(Map.of("ms", Map.of("type", "number")), List.of("ms")),
            null,
            a -> {
              try {
                Thread.sleep(((Number) a.get("ms")).longValue());
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              return text("slept");
            }));
    tools.add(
        tool(
            "fail",
            none,
            null,
            a -> CallToolResult.builder().addTextContent("it broke").isError(true).build()));
  }

  /** die (halts this server) and spawn_grandchild (leaves a process behind). */
  private static void processes(List<SyncToolSpecification> tools, Map<String, Object> none) {
    tools.add(
        tool(
            "die",
            none,
            null,
            a -> {
              Runtime.getRuntime().halt(3);
              return text("unreachable");
            }));
    tools.add(
        tool(
            "spawn_grandchild",
            none,
            null,
            a -> {
              try {
                return text(Deafness.spawnGrandchild());
              } catch (IOException e) {
                return CallToolResult.builder().addTextContent(e.toString()).isError(true).build();
              }
            }));
  }

  /** {@code add_tool {name}}: adds a tool named {@code name} to the running server. */
  private static SyncToolSpecification addTool(
      AtomicReference<McpSyncServer> self, Map<String, Object> none) {
    return tool(
        "add_tool",
        schema(Map.of("name", Map.of("type", "string")), List.of("name")),
        null,
        a -> {
          String name = String.valueOf(a.get("name"));
          self.get().addTool(tool(name, none, null, x -> text(name)));
          return text("added " + name);
        });
  }

  /** {@code meta}: answers the request's {@code _meta}. */
  private static SyncToolSpecification meta(Map<String, Object> none) {
    return SyncToolSpecification.builder()
        .tool(
            McpSchema.Tool.builder()
                .name("meta")
                .description("answers the request's _meta")
                .inputSchema(none)
                .build())
        .callHandler(
            (ex, req) ->
                text(
                    String.valueOf(
                        req.meta() == null ? Map.of() : new java.util.TreeMap<>(req.meta()))))
        .build();
  }

  /** {@code ledger}: performs once per idempotency key, see {@link #ledgerCall}. */
  private static SyncToolSpecification ledger(Map<String, Object> none) {
    return SyncToolSpecification.builder()
        .tool(
            McpSchema.Tool.builder()
                .name("ledger")
                .description(
                    "performs once per idempotency key (from _meta): the key is appended to the file"
                        + " named by FLOWS_TEST_LEDGER the first time; every call is appended to"
                        + " FLOWS_TEST_LEDGER.calls")
                .inputSchema(none)
                .build())
        .callHandler((ex, req) -> ledgerCall(req))
        .build();
  }

  /**
   * Appends the call's idempotency key to {@code FLOWS_TEST_LEDGER.calls}, and to {@code
   * FLOWS_TEST_LEDGER} the first time the key is seen; with {@code FLOWS_TEST_LEDGER_AFTER=halt}
   * the server then halts instead of answering, with {@code hang} it never answers.
   */
  private static CallToolResult ledgerCall(McpSchema.CallToolRequest req) {
    Object key = req.meta() == null ? null : req.meta().get(McpTransportPort.IDEMPOTENCY_KEY_META);
    String file = System.getenv("FLOWS_TEST_LEDGER");
    if (file == null) {
      return CallToolResult.builder()
          .addTextContent("FLOWS_TEST_LEDGER is not set")
          .isError(true)
          .build();
    }
    java.nio.file.Path ledger = java.nio.file.Path.of(file);
    java.nio.file.Path calls = java.nio.file.Path.of(file + ".calls");
    // Several server processes (one per worker) may share a ledger: the check and
    // the append hold a file lock, so that they are one step across processes too.
    synchronized (TestTools.class) {
      try (java.nio.channels.FileChannel lock =
              java.nio.channels.FileChannel.open(
                  java.nio.file.Path.of(file + ".lock"),
                  java.nio.file.StandardOpenOption.CREATE,
                  java.nio.file.StandardOpenOption.WRITE);
          var held = lock.lock()) {
        append(calls, key + "\n");
        // Idempotency-aware: a key seen before is not performed again.
        if (!java.nio.file.Files.exists(ledger)
            || !java.nio.file.Files.readAllLines(ledger).contains(String.valueOf(key))) {
          append(ledger, key + "\n");
        }
      } catch (IOException e) {
        return CallToolResult.builder().addTextContent(e.toString()).isError(true).build();
      }
    }
    // A server that performs the call and dies before it answers, on every call.
    if ("halt".equals(System.getenv("FLOWS_TEST_LEDGER_AFTER"))) {
      Runtime.getRuntime().halt(3);
    }
    // A server that performs the call and never answers it.
    if ("hang".equals(System.getenv("FLOWS_TEST_LEDGER_AFTER"))) {
      try {
        Thread.sleep(Long.MAX_VALUE);
      } catch (InterruptedException cancelled) {
        Thread.currentThread().interrupt();
      }
      return CallToolResult.builder().addTextContent("cancelled").isError(true).build();
    }
    return text("performed " + key);
  }

  /**
   * {@code ask_live}: during the call, a live {@code elicitation/create} (2025) asking a form "Who
   * is asking?" with a required string {@code name}; answers {@code hello <name>} when accepted,
   * {@code no name given (<action>)} otherwise, and {@code no elicitation capability} when the
   * client declared none.
   */
  private static SyncToolSpecification askLive() {
    Map<String, Object> name = Map.of("name", Map.of("type", "string"));
    return SyncToolSpecification.builder()
        .tool(
            McpSchema.Tool.builder()
                .name("ask_live")
                .description("asks the client for a name during the call")
                .inputSchema(schema(Map.of(), List.of()))
                .build())
        .callHandler(
            (ex, req) -> {
              var caps = ex.getClientCapabilities();
              if (caps == null || caps.elicitation() == null) {
                return text("no elicitation capability");
              }
              McpSchema.ElicitResult r =
                  ex.createElicitation(
                      McpSchema.ElicitRequest.builder(
                              "Who is asking?", schema(name, List.of("name")))
                          .build());
              return r.action() == McpSchema.ElicitResult.Action.ACCEPT
                      && r.content() != null
                      && r.content().get("name") instanceof String n
                  ? text("hello " + n)
                  : text("no name given (" + r.action().name().toLowerCase() + ")");
            })
        .build();
  }

  /**
   * {@code timed {ms, log, n}}: performs once per idempotency key, then takes {@code ms} and
   * answers {@code n=<n>}. Each call appends {@code <key> <start> <end> <performed>} (epoch millis
   * by this server's clock) to {@code log}, so a test sees from the server's own timestamps whether
   * calls overlapped and whether a key was performed twice.
   */
  private static SyncToolSpecification timed() {
    java.util.Set<String> performed = java.util.concurrent.ConcurrentHashMap.newKeySet();
    return SyncToolSpecification.builder()
        .tool(
            McpSchema.Tool.builder()
                .name("timed")
                .description("takes ms, performing once per idempotency key; logs start and end")
                .inputSchema(
                    schema(
                        Map.of(
                            "ms", Map.of("type", "number"),
                            "log", Map.of("type", "string"),
                            "n", Map.of("type", "number")),
                        List.of("ms", "log")))
                .build())
        .callHandler(
            (ex, req) -> {
              Map<String, Object> a = req.arguments() == null ? Map.of() : req.arguments();
              Object key =
                  req.meta() == null ? null : req.meta().get(McpTransportPort.IDEMPOTENCY_KEY_META);
              java.nio.file.Path log = java.nio.file.Path.of(String.valueOf(a.get("log")));
              long start = System.currentTimeMillis();
              boolean first = performedFirst(log, String.valueOf(key), performed);
              try {
                Thread.sleep(((Number) a.get("ms")).longValue());
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              long end = System.currentTimeMillis();
              try {
                append(log, key + " " + start + " " + end + " " + first + "\n");
              } catch (IOException e) {
                return CallToolResult.builder().addTextContent(e.toString()).isError(true).build();
              }
              return text("n=" + a.get("n"));
            })
        .build();
  }

  /**
   * Whether {@code key} is performed now for the first time; the keys performed are kept in {@code
   * log.performed}, so a server started anew (its worker died) still knows them.
   */
  private static boolean performedFirst(
      java.nio.file.Path log, String key, java.util.Set<String> performed) {
    java.nio.file.Path keys = java.nio.file.Path.of(log + ".performed");
    synchronized (TestTools.class) {
      try {
        if (performed.contains(key)
            || (java.nio.file.Files.exists(keys)
                && java.nio.file.Files.readAllLines(keys).contains(key))) {
          return false;
        }
        append(keys, key + "\n");
        performed.add(key);
        return true;
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
  }
}
