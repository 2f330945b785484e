package dev.flows.sdk.config;

import dev.flows.kernel.journal.PayloadLimits;
import dev.flows.kernel.llm.ModelConfig;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A loaded {@code flows.json}; {@code file} is empty when none was found (no servers, no models).
 * {@code secretKeys}: its {@code secrets} entry, the variables secret values are sealed under.
 * {@code limits}: its {@code limits} entry over {@link PayloadLimits#DEFAULTS}, the bounds every
 * process reading the file opens its journal and worker with.
 */
public record FlowsConfig(
    Optional<Path> file,
    Map<String, ServerEntry> mcp,
    Map<String, ModelConfig> models,
    Optional<SecretKeyEnvs> secretKeys,
    PayloadLimits limits) {
  public FlowsConfig {
    mcp = Map.copyOf(new TreeMap<>(mcp));
    models = Map.copyOf(new TreeMap<>(models));
  }

  /**
   * flows.json's {@code "secrets": {"keyEnv": NAME, "oldKeyEnvs": [NAME…]}}: the variable holding
   * the key secret values are sealed under, and those holding earlier keys still opened.
   */
  public record SecretKeyEnvs(String keyEnv, java.util.List<String> oldKeyEnvs) {
    public SecretKeyEnvs {
      oldKeyEnvs = java.util.List.copyOf(oldKeyEnvs);
    }
  }

  public FlowsConfig(
      Optional<Path> file,
      Map<String, ServerEntry> mcp,
      Map<String, ModelConfig> models,
      Optional<SecretKeyEnvs> secretKeys) {
    this(file, mcp, models, secretKeys, PayloadLimits.DEFAULTS);
  }

  public FlowsConfig(
      Optional<Path> file, Map<String, ServerEntry> mcp, Map<String, ModelConfig> models) {
    this(file, mcp, models, Optional.empty());
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
