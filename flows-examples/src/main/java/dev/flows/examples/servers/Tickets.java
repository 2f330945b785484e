package dev.flows.examples.servers;

import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The tickets server's tools and its in-memory state (one process, one store; a restarted server
 * starts empty). {@code create_ticket} honours an idempotency key in {@code _meta} for as long as
 * the process lives.
 */
public final class Tickets {
  static final long FIRST_TICKET_NUMBER = 1001;

  private final ExamplesConfig config;
  private final Map<String, Map<String, Object>> tickets = new ConcurrentHashMap<>();
  private final AtomicLong next = new AtomicLong(FIRST_TICKET_NUMBER);
  private final IdempotencyLedger ledger;

  public Tickets(ExamplesConfig config) {
    this.config = config;
    this.ledger = new IdempotencyLedger(config.maxLedgerKeys());
  }

  public List<ExampleTool> tools() {
    return List.of(classify(), createTicket(), getTicket());
  }

  private ExampleTool classify() {
    return ToolKit.tool(
        "classify",
        "Classify a support message by fixed keyword rules: category (billing, bug, account,"
            + " feature, general) and priority (low, normal, high, urgent).",
        ToolKit.objectSchema(
            Map.of("text", ToolKit.prop("string", "the customer's message")), List.of("text")),
        ToolKit.annotations("Classify a message", true, false, true),
        call -> {
          Classifier.Classification c =
              Classifier.classify(args(call.arguments()).nonBlank("text"));
          Map<String, Object> out = new LinkedHashMap<>();
          out.put("category", c.category());
          out.put("priority", c.priority());
          out.put("matched", c.matched());
          return ToolKit.ok(out);
        });
  }

  private ExampleTool createTicket() {
    return ToolKit.tool(
        "create_ticket",
        "Open a support ticket. Without priority or category, the classify rules choose them. An"
            + " idempotency key in _meta (\""
            + IdempotencyLedger.META_KEY
            + "\") makes a repeat answer the first ticket.",
        ToolKit.objectSchema(
            Map.of(
                "title", ToolKit.prop("string", "a short summary"),
                "body", ToolKit.prop("string", "the customer's message"),
                "priority", ToolKit.enumProp("how soon to act", Classifier.PRIORITIES),
                "category", ToolKit.enumProp("the queue", Classifier.CATEGORIES),
                "customer", ToolKit.prop("string", "the customer's id, when known")),
            List.of("title", "body")),
        ToolKit.annotations("Create a ticket", false, false, false),
        call -> {
          Args a = args(call.arguments());
          String title = a.nonBlank("title");
          String body = a.nonBlank("body");
          Optional<String> priority = a.optString("priority").map(p -> oneOf("priority", p));
          Optional<String> category = a.optString("category").map(c -> oneOf("category", c));
          Optional<String> customer = a.optString("customer");
          Optional<String> key = IdempotencyLedger.keyOf(call.meta());
          Supplier<CallToolResult> work =
              () -> ToolKit.ok(open(title, body, priority, category, customer));
          return key.isPresent()
              ? ledger.perform(key.get(), "create_ticket", call.arguments(), work)
              : work.get();
        });
  }

  private ExampleTool getTicket() {
    return ToolKit.tool(
        "get_ticket",
        "Read a ticket by id.",
        ToolKit.objectSchema(
            Map.of("id", ToolKit.prop("string", "a ticket id such as T-1001")), List.of("id")),
        ToolKit.annotations("Get a ticket", true, false, true),
        call -> {
          String id = args(call.arguments()).nonBlank("id");
          Map<String, Object> t = tickets.get(id);
          if (t == null) {
            throw new ToolError("no ticket " + id);
          }
          return ToolKit.ok(t);
        });
  }

  private Map<String, Object> open(
      String title,
      String body,
      Optional<String> priority,
      Optional<String> category,
      Optional<String> customer) {
    Classifier.Classification c = Classifier.classify(title + "\n" + body);
    String id = "T-" + next.getAndIncrement();
    Map<String, Object> t = new LinkedHashMap<>();
    t.put("id", id);
    t.put("title", title);
    t.put("body", body);
    t.put("priority", priority.orElse(c.priority()));
    t.put("category", category.orElse(c.category()));
    customer.ifPresent(v -> t.put("customer", v));
    t.put("status", "open");
    Map<String, Object> frozen = Collections.unmodifiableMap(t);
    tickets.put(id, frozen);
    return frozen;
  }

  private Args args(Map<String, Object> raw) {
    return new Args(raw, config.maxTextChars());
  }

  private static String oneOf(String what, String v) {
    List<String> allowed = what.equals("priority") ? Classifier.PRIORITIES : Classifier.CATEGORIES;
    if (!allowed.contains(v)) {
      throw new ToolError(what + " must be one of " + allowed + ", not \"" + v + "\"");
    }
    return v;
  }
}
