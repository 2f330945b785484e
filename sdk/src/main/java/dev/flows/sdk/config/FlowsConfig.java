package dev.flows.sdk.config;

import dev.flows.kernel.llm.ModelConfig;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A loaded {@code flows.json}; {@code file} is empty when none was found (no servers, no models).
 */
public record FlowsConfig(
    Optional<Path> file, Map<String, ServerEntry> mcp, Map<String, ModelConfig> models) {
  public FlowsConfig {
    mcp = Map.copyOf(new TreeMap<>(mcp));
    models = Map.copyOf(new TreeMap<>(models));
  }

  /** A configuration of servers only. */
  public FlowsConfig(Optional<Path> file, Map<String, ServerEntry> mcp) {
    this(file, mcp, Map.of());
  }

  public static FlowsConfig empty() {
    return new FlowsConfig(Optional.empty(), Map.of(), Map.of());
  }

  public Optional<ServerEntry> server(String name) {
    return Optional.ofNullable(mcp.get(name));
  }

  public Optional<ModelConfig> model(String name) {
    return Optional.ofNullable(models.get(name));
  }

  /** Where this configuration came from, for messages. */
  public String origin() {
    return file.map(Path::toString).orElse("(no flows.json)");
  }
}
