package dev.flows.spring.console;

import dev.flows.embed.Flows;
import dev.flows.ops.ConsoleMount;
import dev.flows.spring.FlowsAutoConfiguration;
import java.util.Locale;
import java.util.Optional;
import javax.sql.DataSource;
import org.springframework.boot.actuate.endpoint.SanitizingFunction;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * With {@code flows.console.enabled=true} in a servlet web application with flows: the web console
 * served by the application's own web server under {@code flows.console.path}, over the flows
 * database of the application's {@link DataSource}, its actions behind {@code flows.console.token}
 * (read-only without one).
 */
@AutoConfiguration(after = FlowsAutoConfiguration.class)
@ConditionalOnClass({ConsoleMount.class, ServletRegistrationBean.class})
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnBooleanProperty("flows.console.enabled")
@ConditionalOnBean({Flows.class, DataSource.class})
@EnableConfigurationProperties(FlowsConsoleProperties.class)
public class FlowsConsoleAutoConfiguration {
  /**
   * The console's servlet at {@code flows.console.path}. It depends on {@link Flows}, so the flows
   * schema is checked (or migrated) before the console reads it, and its journal holds the payload
   * limits of the service's ({@code flows.limits.*}, flows.json's).
   */
  @Bean
  @ConditionalOnMissingBean(name = "flowsConsoleServlet")
  ServletRegistrationBean<FlowsConsoleServlet> flowsConsoleServlet(
      DataSource dataSource, FlowsConsoleProperties properties, Flows flows) {
    String path = ConsoleMount.basePath(properties.path(), "flows.console.path");
    var own = flows.journalLimits();
    FlowsConsoleServlet servlet =
        new FlowsConsoleServlet(
            dataSource,
            Optional.ofNullable(properties.token()).filter(t -> !t.isBlank()),
            path,
            new ConsoleMount.Limits(
                own.maxRunInputBytes(), own.maxSignalBytes(), own.maxAnswerBytes()));
    ServletRegistrationBean<FlowsConsoleServlet> registration =
        new ServletRegistrationBean<>(servlet, path + "/*");
    registration.setName("flowsConsole");
    registration.setLoadOnStartup(1);
    return registration;
  }

  /**
   * The console's token masked in Actuator's {@code configprops} and {@code env} endpoints even
   * when they show values.
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(SanitizingFunction.class)
  static class Sanitizing {
    @Bean
    @ConditionalOnMissingBean(name = "flowsConsoleTokenSanitizer")
    SanitizingFunction flowsConsoleTokenSanitizer() {
      return SanitizingFunction.sanitizeValue()
          .ifKeyMatches(FlowsConsoleAutoConfiguration::isConsoleToken);
    }
  }

  /**
   * The token under any of its spellings: {@code flows.console.token} (properties, configprops),
   * {@code FLOWS_CONSOLE_TOKEN} (environment).
   */
  static boolean isConsoleToken(String key) {
    return key.toLowerCase(Locale.ROOT).replaceAll("[-_.\\[\\]]", "").equals("flowsconsoletoken");
  }
}
