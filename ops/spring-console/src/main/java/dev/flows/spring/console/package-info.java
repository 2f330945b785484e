/**
 * The web console in a Spring Boot service: {@link
 * dev.flows.spring.console.FlowsConsoleAutoConfiguration} serves it under {@code
 * flows.console.path} of the service's own web server when {@code flows.console.enabled} is set
 * ({@link dev.flows.spring.console.FlowsConsoleProperties}). Nothing here is null unless marked
 * {@code @Nullable}.
 */
@NullMarked
package dev.flows.spring.console;

import org.jspecify.annotations.NullMarked;
