package dev.flows.spring;

import dev.flows.embed.Flows;
import dev.flows.embed.FlowsBuilder;
import dev.flows.embed.McpServer;
import dev.flows.embed.WorkerOptions;
import dev.flows.kernel.ErrorCode;
import dev.flows.sdk.Flow;
import dev.flows.sdk.FlowsError;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.net.URI;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * A {@link Flows} on the application's Postgres {@link DataSource}, with every {@link Flow} bean
 * registered and the {@code flows.*} properties applied; its worker starts and drains with the
 * context ({@link FlowsLifecycle}). With Actuator, the health component {@code flows} and the
 * {@code flows.worker.*} meters.
 */
@AutoConfiguration(
    afterName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
@ConditionalOnClass(Flows.class)
@ConditionalOnSingleCandidate(DataSource.class)
@EnableConfigurationProperties(FlowsProperties.class)
public class FlowsAutoConfiguration {
  /** Where a refusal of the properties points. */
  static final String PLACE = "flows.* properties";

  /**
   * Built (schema checked, or migrated with {@code flows.migrate}) when the context starts, its
   * worker waiting for {@link FlowsLifecycle}; closed with the context, never closing the pool.
   */
  @Bean
  @ConditionalOnMissingBean
  public Flows flows(
      DataSource dataSource,
      ObjectProvider<Flow<?, ?>> flowBeans,
      FlowsProperties properties,
      Environment environment) {
    FlowsBuilder b =
        Flows.builder()
            .dataSource(dataSource)
            .migrate(properties.migrate())
            // An MCP server's "env:NAME" secret: the application's property or variable NAME.
            .secrets(environment::getProperty);
    flowBeans.orderedStream().forEach(b::register);
    if (properties.flowsJson() != null) {
      b.flowsJson(properties.flowsJson());
    }
    properties.mcpServers().forEach((name, server) -> b.mcpServer(server(name, server)));
    FlowsProperties.Worker w = properties.worker();
    if (w.enabled()) {
      b.worker(o -> worker(w, o.startLater()));
    }
    try {
      return b.build();
    } catch (FlowsError e) {
      if (!e.code().equals(ErrorCode.MIGRATION_PENDING.wire())) {
        throw e;
      }
      // The same refusal, its fix in this application's terms (a property, not a builder call).
      throw new FlowsError(
          e.code(),
          e.getMessage(),
          e.place().orElse(PLACE),
          "set flows.migrate=true, or run `flows db migrate` against the same database",
          e.retryable(),
          e);
    }
  }

  /** The worker's properties over its defaults; it waits for {@link FlowsLifecycle} to start. */
  private static void worker(FlowsProperties.Worker w, WorkerOptions o) {
    o.queues(w.queues());
    if (w.capacity() != null) {
      o.capacity(w.capacity());
    }
    if (w.pollInterval() != null) {
      o.pollInterval(w.pollInterval());
    }
    if (w.stopGrace() != null) {
      o.stopGrace(w.stopGrace());
    }
    if (w.defaultLease() != null) {
      o.defaultLease(w.defaultLease());
    }
  }

  @Bean
  @ConditionalOnMissingBean
  public FlowsLifecycle flowsLifecycle(Flows flows) {
    return new FlowsLifecycle(flows);
  }

  static McpServer server(String name, FlowsProperties.McpServerProperties p) {
    String where = "flows.mcp-servers." + name;
    if ((p.command() == null) == (p.url() == null)) {
      throw configInvalid(
          "MCP server " + name + " needs either a command or a url",
          where,
          "set " + where + ".command (a stdio server) or " + where + ".url (an HTTP one)");
    }
    McpServer s =
        p.command() != null
            ? McpServer.stdio(name, p.command(), p.args()).env(p.env()).inheritEnv(p.inheritEnv())
            : McpServer.http(name, uri(where, p.url())).headers(p.headers());
    if (p.cwd() != null) {
      s = s.cwd(p.cwd());
    }
    return p.honoursIdempotencyKeys() ? s.honouringIdempotencyKeys() : s;
  }

  private static URI uri(String where, String url) {
    try {
      return URI.create(url);
    } catch (IllegalArgumentException e) {
      throw configInvalid(
          "MCP server URL " + url + " is not a URI",
          where + ".url",
          "give an http:// or https:// URL");
    }
  }

  /** The health component {@code flows}, with Actuator. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(HealthIndicator.class)
  @ConditionalOnEnabledHealthIndicator("flows")
  static class Health {
    @Bean
    @ConditionalOnMissingBean(name = "flowsHealthIndicator")
    FlowsHealthIndicator flowsHealthIndicator(Flows flows) {
      return new FlowsHealthIndicator(flows);
    }
  }

  /** The {@code flows.worker.*} meters, with Micrometer. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(MeterBinder.class)
  static class Meters {
    @Bean
    @ConditionalOnMissingBean
    FlowsMeters flowsMeters(Flows flows) {
      return new FlowsMeters(flows);
    }
  }

  /** A refusal of the application's flows properties, as the public API raises its refusals. */
  private static FlowsError configInvalid(String message, String place, String fix) {
    return new FlowsError(ErrorCode.CONFIG_INVALID.wire(), message, place, fix, false, null);
  }
}
