package dev.flows.sdk;

import dev.flows.kernel.journal.Queues;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * What a flow declares about itself before it runs: its name, its version (a run replays only under
 * the version it started with), {@code tools.mcp}, the MCP servers its body may call, the {@link
 * Queues queue} its runs go to (only workers serving that queue claim them), the models its body
 * may call ({@code f.llm("fast")}), declared under {@code models} in flows.json or given in code,
 * optionally the {@link Schedule} it starts on (applied when a worker starts with the flow), and
 * optionally the {@link Budget} its run may spend on model calls, its children's included.
 */
public record FlowHeader(
    String name,
    String version,
    List<String> mcp,
    String queue,
    List<String> models,
    Optional<Schedule> schedule,
    Optional<Budget> budget) {
  private static final Pattern NAME = Pattern.compile("[A-Za-z][A-Za-z0-9_.-]{0,99}");

  public FlowHeader {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(version, "version");
    Objects.requireNonNull(queue, "queue");
    Objects.requireNonNull(schedule, "schedule");
    Objects.requireNonNull(budget, "budget");
    Queues.require(queue);
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("flow name must match " + NAME.pattern() + ": " + name);
    }
    if (version.isBlank()) {
      throw new IllegalArgumentException("flow version must not be blank");
    }
    mcp = List.copyOf(new LinkedHashSet<>(mcp));
    models = List.copyOf(new LinkedHashSet<>(Objects.requireNonNull(models, "models")));
  }

  /** A header without a run budget. */
  public FlowHeader(
      String name,
      String version,
      List<String> mcp,
      String queue,
      List<String> models,
      Optional<Schedule> schedule) {
    this(name, version, mcp, queue, models, schedule, Optional.empty());
  }

  /** A header declaring these models, on no schedule. */
  public FlowHeader(
      String name, String version, List<String> mcp, String queue, List<String> models) {
    this(name, version, mcp, queue, models, Optional.empty());
  }

  /** A header on this schedule (or none), declaring no models. */
  public FlowHeader(
      String name, String version, List<String> mcp, String queue, Optional<Schedule> schedule) {
    this(name, version, mcp, queue, List.of(), schedule);
  }

  /** A header whose runs go to queue {@code queue}, declaring no models, on no schedule. */
  public FlowHeader(String name, String version, List<String> mcp, String queue) {
    this(name, version, mcp, queue, List.of(), Optional.empty());
  }

  /** A header whose runs go to the {@link Queues#DEFAULT default} queue. */
  public FlowHeader(String name, String version, List<String> mcp) {
    this(name, version, mcp, Queues.DEFAULT);
  }

  public static Builder named(String name) {
    return new Builder(name);
  }

  /** Fluent construction: {@code FlowHeader.named("triage").version("2").mcp("tickets", "crm")}. */
  public static final class Builder {
    private final String name;
    private String version = "1";
    private List<String> mcp = List.of();
    private String queue = Queues.DEFAULT;
    private List<String> models = List.of();
    private Optional<Schedule> schedule = Optional.empty();
    private Optional<Budget> budget = Optional.empty();

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

    /** The models the body may call ({@code f.llm(name)}), by their declared names. */
    public Builder models(String... names) {
      this.models = List.of(names);
      return this;
    }

    /** The queue this flow's runs go to; {@code flows worker --queue NAME} serves it. */
    public Builder queue(String q) {
      this.queue = q;
      return this;
    }

    /** Starts this flow on {@code s} too: {@code .schedule(Schedule.cron("0 3 * * *"))}. */
    public Builder schedule(Schedule s) {
      this.schedule = Optional.of(s);
      return this;
    }

    /**
     * What each run may spend on model calls, its child runs' calls included: checked before every
     * model call against the run tree's journaled usage ({@code budget_exhausted} past it).
     */
    public Builder budget(Budget b) {
      this.budget = Optional.of(b);
      return this;
    }

    public FlowHeader build() {
      return new FlowHeader(name, version, mcp, queue, models, schedule, budget);
    }
  }
}
