package dev.flows.examples.servers;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** What one MCP session of the payments server has done; no other session sees it. */
final class PaymentSession {
  private final Set<String> customers = new LinkedHashSet<>();
  private final List<String> charges = new ArrayList<>();
  private final List<String> credits = new ArrayList<>();
  private final List<String> refunds = new ArrayList<>();
  private long chargedCents;
  private long creditedCents;
  private long refundedCents;

  synchronized void customer(String id) {
    customers.add(id);
  }

  synchronized void charged(String id, long cents) {
    charges.add(id);
    chargedCents += cents;
  }

  synchronized void credited(String id, long cents) {
    credits.add(id);
    creditedCents += cents;
  }

  synchronized void refunded(String id, long cents) {
    refunds.add(id);
    refundedCents += cents;
  }

  synchronized Map<String, Object> summary(String sessionId) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("sessionId", sessionId);
    out.put("customers", List.copyOf(customers));
    out.put("charges", List.copyOf(charges));
    out.put("credits", List.copyOf(credits));
    out.put("chargedCents", chargedCents);
    out.put("creditedCents", creditedCents);
    out.put("refunds", List.copyOf(refunds));
    out.put("refundedCents", refundedCents);
    return out;
  }
}
