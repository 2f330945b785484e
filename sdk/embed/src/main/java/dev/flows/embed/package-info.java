/**
 * flows inside a Java service: {@link dev.flows.embed.Flows} starts runs, finds them and waits for
 * their results. Nothing here is null unless marked {@code @Nullable}; an absent value is an {@link
 * java.util.Optional}.
 */
@NullMarked
package dev.flows.embed;

import org.jspecify.annotations.NullMarked;
