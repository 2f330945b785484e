package dev.flows.sdk;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * What a flow declares about itself before it runs: its name, its version (a run replays only under
 * the version it started with) and {@code tools.mcp}, the MCP servers its body may call.
 */
public record FlowHeader(String name, String version, List<String> mcp) {
  private static final Pattern NAME = Pattern.compile("[A-Za-z][A-Za-z0-9_.-]{0,99}");

  public FlowHeader {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(version, "version");
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("flow name must match " + NAME.pattern() + ": " + name);
    }
    if (version.isBlank()) {
      throw new IllegalArgumentException("flow version must not be blank");
    }
    mcp = List.copyOf(new LinkedHashSet<>(mcp));
  }

  public static Builder named(String name) {
    return new Builder(name);
  }

  /** Fluent construction: {@code FlowHeader.named("triage").version("2").mcp("tickets", "crm")}. */
  public static final class Builder {
    private final String name;
    private String version = "1";
    private List<String> mcp = List.of();

    private Builder(String name) {
      this.name = name;
    }

    public Builder version(String v) {
      this.version = v;
      return this;
    }

    public Builder mcp(String... servers) {
      this.mcp = List.of(servers);
      return this;
    }

    public FlowHeader build() {
      return new FlowHeader(name, version, mcp);
    }
  }
}
