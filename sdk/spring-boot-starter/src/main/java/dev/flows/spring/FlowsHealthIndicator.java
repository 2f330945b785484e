package dev.flows.spring;

import dev.flows.embed.Flows;
import dev.flows.embed.FlowsHealth;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * The Actuator health component {@code flows}: UP when the database answers with this build's
 * schema and the worker (if the application runs one) claims; its details say which part is not.
 */
public class FlowsHealthIndicator implements HealthIndicator {
  private final Flows flows;

  public FlowsHealthIndicator(Flows flows) {
    this.flows = flows;
  }

  @Override
  public Health health() {
    FlowsHealth h = flows.health();
    Health.Builder b = h.up() ? Health.up() : Health.down();
    b.withDetail("database", h.databaseReachable() ? "reachable" : "unreachable")
        .withDetail("schema", h.schemaCurrent() ? "current" : "not current")
        .withDetail("worker", h.worker().name().toLowerCase(java.util.Locale.ROOT));
    h.problem().ifPresent(p -> b.withDetail("problem", p));
    return b.build();
  }
}
