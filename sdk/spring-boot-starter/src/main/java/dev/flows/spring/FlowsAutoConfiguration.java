package dev.flows.spring;

import dev.flows.embed.Flows;
import dev.flows.embed.FlowsBuilder;
import dev.flows.embed.McpServer;
import dev.flows.embed.Model;
import dev.flows.embed.WorkerOptions;
import dev.flows.kernel.ErrorCode;
import dev.flows.sdk.Flow;
import dev.flows.sdk.FlowsError;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.net.URI;
import java.util.HashMap;
import java.util.Map;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.endpoint.SanitizingFunction;
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
    Map<String, String> apiKeys = new HashMap<>();
    FlowsBuilder b =
        Flows.builder()
            .dataSource(dataSource)
            .migrate(properties.migrate())
            // An "env:NAME" secret or a model's apiKeyEnv: the application's property or variable
            // NAME; a model's api-key property under its own name.
            .secrets(n -> apiKeys.containsKey(n) ? apiKeys.get(n) : environment.getProperty(n));
    flowBeans.orderedStream().forEach(b::register);
    if (properties.flowsJson() != null) {
      b.flowsJson(properties.flowsJson());
    }
    properties.mcpServers().forEach((name, server) -> b.mcpServer(server(name, server)));
    properties.models().forEach((name, model) -> b.model(model(name, model, apiKeys)));
    limits(properties.limits(), b);
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

  /**
   * The {@code flows.limits.*} properties as the builder's journal limits; a bound out of range is
   * refused {@code config_invalid} at its property.
   */
  static void limits(FlowsProperties.Limits p, FlowsBuilder b) {
    if (p.maxRunInputBytes() == null && p.maxSignalBytes() == null && p.maxAnswerBytes() == null) {
      return;
    }
    b.payloadLimits(
        l -> {
          limit(p.maxRunInputBytes(), "max-run-input-bytes", l::maxRunInputBytes);
          limit(p.maxSignalBytes(), "max-signal-bytes", l::maxSignalBytes);
          limit(p.maxAnswerBytes(), "max-answer-bytes", l::maxAnswerBytes);
        });
  }

  private static void limit(
      @org.jspecify.annotations.Nullable Long bytes,
      String property,
      java.util.function.LongConsumer set) {
    if (bytes == null) {
      return;
    }
    try {
      set.accept(bytes);
    } catch (FlowsError e) {
      // The same refusal, placed at the application's property.
      throw new FlowsError(
          e.code(),
          e.getMessage(),
          "flows.limits." + property,
          e.fix().orElse(null),
          e.retryable(),
          e);
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

  /**
   * The model {@code name} of the properties; its {@code api-key} is kept in {@code apiKeys} under
   * the property's name, which the model names as its secret.
   */
  static Model model(String name, FlowsProperties.ModelProperties p, Map<String, String> apiKeys) {
    String where = "flows.models." + name;
    if (p.provider() == null || p.model() == null) {
      throw configInvalid(
          "model " + name + " needs a provider and a model",
          where,
          "set "
              + where
              + ".provider (openai, anthropic, ollama, openai-compatible) and "
              + where
              + ".model (the provider's model id)");
    }
    if (p.apiKey() != null && p.apiKeyEnv() != null) {
      throw configInvalid(
          "model " + name + " has both api-key and api-key-env",
          where,
          "set one of " + where + ".api-key or " + where + ".api-key-env");
    }
    try {
      Model m = Model.of(name, p.provider(), p.model());
      if (p.baseUrl() != null) {
        m = m.baseUrl(p.baseUrl());
      }
      if (p.timeout() != null) {
        m = m.timeout(p.timeout());
      }
      if (p.apiKey() != null) {
        apiKeys.put(where + ".api-key", p.apiKey());
        m = m.apiKeySecret(where + ".api-key");
      } else if (p.apiKeyEnv() != null) {
        m = m.apiKeySecret(p.apiKeyEnv());
      }
      return m;
    } catch (FlowsError e) {
      // The same refusal, placed at the application's properties.
      throw new FlowsError(e.code(), e.getMessage(), where, e.fix().orElse(null), e.retryable(), e);
    }
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

  /** The {@code flows.worker.*} meters and the engine's metrics, with Micrometer. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(MeterBinder.class)
  static class Meters {
    @Bean
    @ConditionalOnMissingBean
    FlowsMeters flowsMeters(Flows flows) {
      return new FlowsMeters(flows);
    }

    @Bean
    @ConditionalOnMissingBean
    FlowsEngineMeters flowsEngineMeters() {
      return new FlowsEngineMeters();
    }
  }

  /**
   * Models' API keys masked in Actuator's {@code configprops} and {@code env} endpoints even when
   * they show values ({@code show-values=always}).
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(SanitizingFunction.class)
  static class Sanitizing {
    @Bean
    @ConditionalOnMissingBean(name = "flowsApiKeySanitizer")
    SanitizingFunction flowsApiKeySanitizer() {
      return SanitizingFunction.sanitizeValue().ifKeyMatches(FlowsAutoConfiguration::isApiKey);
    }
  }

  /**
   * A model's API key under any of its spellings: {@code flows.models.x.api-key} (properties),
   * {@code flows.models.x.apiKey} (configprops), {@code FLOWS_MODELS_X_APIKEY} (environment).
   */
  static boolean isApiKey(String key) {
    String k = key.toLowerCase(java.util.Locale.ROOT).replaceAll("[-_.\\[\\]]", "");
    return k.startsWith("flowsmodels") && k.endsWith("apikey");
  }

  /** A refusal of the application's flows properties, as the public API raises its refusals. */
  private static FlowsError configInvalid(String message, String place, String fix) {
    return new FlowsError(ErrorCode.CONFIG_INVALID.wire(), message, place, fix, false, null);
  }
}
