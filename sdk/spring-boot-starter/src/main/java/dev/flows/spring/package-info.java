/**
 * The Spring Boot starter: {@link dev.flows.spring.FlowsAutoConfiguration} builds a {@link
 * dev.flows.embed.Flows} from the application's DataSource and {@code flows.*} properties ({@link
 * dev.flows.spring.FlowsProperties}). Nothing here is null unless marked {@code @Nullable}.
 */
@NullMarked
package dev.flows.spring;

import org.jspecify.annotations.NullMarked;
