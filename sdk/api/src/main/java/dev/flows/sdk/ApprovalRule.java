package dev.flows.sdk;

import java.util.List;

/**
 * Which tool calls of an agent need a person's approval before they are sent ({@link
 * AgentCall#approve(ApprovalRule)}): {@code call -> call.tool().equals("refund") &&
 * call.arguments().path("amountCents").asLong() > 10_000}. It runs in the body, on every replay, so
 * it must decide from the call alone (no clock, no I/O).
 */
@FunctionalInterface
public interface ApprovalRule {
  /** Whether {@code call} waits for approval before it is sent. */
  boolean requires(ProposedCall call);

  /** Every call of {@code tools} of {@code server}; of every tool of it when none is named. */
  static ApprovalRule of(String server, String... tools) {
    List<String> named = List.of(tools);
    return call -> call.server().equals(server) && (named.isEmpty() || named.contains(call.tool()));
  }
}
