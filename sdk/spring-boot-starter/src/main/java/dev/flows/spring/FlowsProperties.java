package dev.flows.spring;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The {@code flows.*} properties of a Spring Boot application (SURFACE.md, "Spring Boot starter").
 * A property left unset takes the embedding API's default.
 *
 * @param migrate Apply the flows schema's pending migrations at startup; without it a schema older
 *     than this build stops the application (migration_pending)
 * @param flowsJson Also read the MCP servers of this flows.json (a file, or a directory to search
 *     upward from)
 * @param worker The worker this application runs
 * @param mcpServers MCP servers by name, each a command (stdio) or a URL (Streamable HTTP)
 * @param models Models by name, served through LangChain4j as flows.json's models are
 * @param limits The journal's payload limits, held for every start, signal and answer of this
 *     application
 */
@ConfigurationProperties("flows")
public record FlowsProperties(
    @DefaultValue("false") boolean migrate,
    @Nullable Path flowsJson,
    @DefaultValue Worker worker,
    @DefaultValue Map<String, McpServerProperties> mcpServers,
    @DefaultValue Map<String, ModelProperties> models,
    @DefaultValue Limits limits) {

  /**
   * The journal's own payload limits, each over the {@code limits} of the flows-json file, else 4
   * MiB (4194304); a bound outside 4096..268435455 stops the application (config_invalid).
   *
   * @param maxRunInputBytes The largest run input the journal admits, in bytes; past it a start is
   *     refused payload_too_large, nothing written
   * @param maxSignalBytes The largest signal payload the journal takes, in bytes
   * @param maxAnswerBytes The largest answer to a step parked for input the journal takes, in bytes
   */
  public record Limits(
      @Nullable Long maxRunInputBytes,
      @Nullable Long maxSignalBytes,
      @Nullable Long maxAnswerBytes) {}

  /**
   * The worker: started with the application context, drained when it closes.
   *
   * @param enabled Run a worker in this application; without one it only starts runs and waits for
   *     them (another process's worker runs them)
   * @param capacity Steps the worker runs at once
   * @param pollInterval How often it looks for work when no notification woke it
   * @param stopGrace How long a drain lets running attempts finish before it cancels them
   * @param defaultLease The lease of a step whose spec names none
   * @param queues The queues it claims from
   */
  public record Worker(
      @DefaultValue("true") boolean enabled,
      @Nullable Integer capacity,
      @Nullable Duration pollInterval,
      @Nullable Duration stopGrace,
      @Nullable Duration defaultLease,
      @DefaultValue("default") Set<String> queues) {}

  /**
   * One MCP server: either a command (with args, env, cwd) or a url (with headers).
   *
   * @param command The program of a stdio server
   * @param args Its arguments
   * @param env Variables set for it
   * @param inheritEnv Variables of this process it inherits
   * @param cwd Its working directory
   * @param url The endpoint of a Streamable HTTP server
   * @param headers HTTP headers sent to it
   * @param honoursIdempotencyKeys Whether the server deduplicates calls by their idempotency key
   */
  public record McpServerProperties(
      @Nullable String command,
      @DefaultValue List<String> args,
      @DefaultValue Map<String, String> env,
      @DefaultValue List<String> inheritEnv,
      @Nullable String cwd,
      @Nullable String url,
      @DefaultValue Map<String, String> headers,
      @DefaultValue("false") boolean honoursIdempotencyKeys) {}

  /**
   * One model, as a flows.json {@code models} entry.
   *
   * @param provider Who serves it: openai, anthropic, ollama or openai-compatible
   * @param model The provider's model id, e.g. gpt-4o-mini
   * @param baseUrl Where the provider listens (required for openai-compatible)
   * @param apiKey The API key (e.g. ${OPENAI_API_KEY}); never printed
   * @param apiKeyEnv Instead of api-key: the property or environment variable holding the key
   * @param timeout How long one call may take (default 60s)
   */
  public record ModelProperties(
      @Nullable String provider,
      @Nullable String model,
      @Nullable URI baseUrl,
      @Nullable String apiKey,
      @Nullable String apiKeyEnv,
      @Nullable Duration timeout) {
    /** Says whether a key is set, never the key. */
    @Override
    public String toString() {
      return "ModelProperties[provider="
          + provider
          + ", model="
          + model
          + ", baseUrl="
          + baseUrl
          + ", apiKey="
          + (apiKey == null ? "none" : "******")
          + ", apiKeyEnv="
          + apiKeyEnv
          + ", timeout="
          + timeout
          + "]";
    }
  }
}
