package dev.flows.sdk.config;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/** A loaded {@code flows.json}; {@code file} is empty when none was found (no servers). */
public record FlowsConfig(Optional<Path> file, Map<String, ServerEntry> mcp) {
  public FlowsConfig {
    mcp = Map.copyOf(new TreeMap<>(mcp));
  }

  public static FlowsConfig empty() {
    return new FlowsConfig(Optional.empty(), Map.of());
  }

  public Optional<ServerEntry> server(String name) {
    return Optional.ofNullable(mcp.get(name));
  }

  /** Where this configuration came from, for messages. */
  public String origin() {
    return file.map(Path::toString).orElse("(no flows.json)");
  }
}
