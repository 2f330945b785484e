package dev.flows.mcp.testkit;

import dev.flows.kernel.mcp.McpServerConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Configs that run one of our test servers as a child JVM on the test classpath. */
public final class Jvm {
  private Jvm() {}

  public static String java() {
    return ProcessHandle.current().info().command().orElse("java");
  }

  /** A {@link ModernTestServer} (2026-07-28) over stdio. */
  public static McpServerConfig.Stdio modernStdioServer(String name, String... flags) {
    return server(name, ModernTestServer.class, List.of(), Map.of(), flags);
  }

  /** A {@link TaskTestServer} over stdio (2026-07-28 unless a flag says 2025-11-25). */
  public static McpServerConfig.Stdio taskStdioServer(String name, String... flags) {
    return server(name, TaskTestServer.class, List.of(), Map.of(), flags);
  }

  public static McpServerConfig.Stdio stdioServer(
      String name, List<String> allowlist, Map<String, String> env, String... flags) {
    return server(name, StdioTestServer.class, allowlist, env, flags);
  }

  private static McpServerConfig.Stdio server(
      String name,
      Class<?> main,
      List<String> allowlist,
      Map<String, String> env,
      String... flags) {
    List<String> args = new ArrayList<>();
    // Quick startup matters more than peak speed for a test server on a shared 2-core machine.
    args.addAll(List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xss512k"));
    args.addAll(List.of("-cp", System.getProperty("java.class.path")));
    args.add(main.getName());
    args.addAll(List.of(flags));
    return new McpServerConfig.Stdio(name, java(), args, allowlist, env, Optional.empty());
  }
}
