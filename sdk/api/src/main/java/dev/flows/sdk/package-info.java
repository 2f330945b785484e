/**
 * What a flow author compiles against: {@link dev.flows.sdk.Flow}, {@link dev.flows.sdk.Ctx},
 * {@link dev.flows.sdk.FlowHeader} and the values and exceptions they answer. Nothing here is null
 * unless marked {@code @Nullable}; an absent value is an {@link java.util.Optional}.
 */
@NullMarked
package dev.flows.sdk;

import org.jspecify.annotations.NullMarked;
