/**
 * The test kit: {@link dev.flows.testing.FlowsTest} and {@link
 * dev.flows.testing.FlowsTestEnvironment} run flows through the embedding API with a virtual clock,
 * fake MCP servers and in-process crashes; {@link dev.flows.testing.FlowsAssertions} says what a
 * run did. Nothing here is null unless marked {@code @Nullable}; an absent value is an {@link
 * java.util.Optional}.
 */
@NullMarked
package dev.flows.testing;

import org.jspecify.annotations.NullMarked;
