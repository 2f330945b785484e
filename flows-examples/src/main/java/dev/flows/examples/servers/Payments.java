package dev.flows.examples.servers;

import dev.flows.kernel.keys.Keys;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.security.SecureRandom;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * The payments server's tools. Each MCP session has its own activity record; the idempotency ledger
 * is the one thing every session of the process shares.
 *
 * <p>Customer ids are derived from the email, so {@code charge} accepts a customer created in any
 * session: flows runs each tool call on whichever worker claims it, and each worker has its own
 * session, so a charge often arrives on another session than the customer's creation.
 */
public final class Payments {
  static final Pattern CUSTOMER_ID = Pattern.compile("cus_[0-9a-f]{12}");
  static final Pattern CURRENCY = Pattern.compile("[A-Z]{3}");
  static final Pattern EMAIL = Pattern.compile("[^@\\s]+@[^@\\s]+\\.[^@\\s]+");
  static final int ID_HEX_CHARS = 12;
  static final int RANDOM_ID_BYTES = 8;

  private final ExamplesConfig config;
  private final IdempotencyLedger ledger;
  private final Map<String, PaymentSession> sessions;
  private final SecureRandom random = new SecureRandom();

  public Payments(ExamplesConfig config) {
    this.config = config;
    this.ledger = new IdempotencyLedger(config.maxLedgerKeys());
    int max = config.maxSessions();
    this.sessions =
        Collections.synchronizedMap(
            new LinkedHashMap<>(16, 0.75f, true) {
              private static final long serialVersionUID = 1L;

              @Override
              protected boolean removeEldestEntry(Map.Entry<String, PaymentSession> eldest) {
                return size() > max;
              }
            });
  }

  public IdempotencyLedger ledger() {
    return ledger;
  }

  public List<ExampleTool> tools() {
    return List.of(createCustomer(), charge(), credit(), refund(), ledgerTool(), sessionSummary());
  }

  private ExampleTool createCustomer() {
    return ToolKit.tool(
        "create_customer",
        "Create (or find) the customer with this email; the id depends only on the email.",
        ToolKit.objectSchema(
            Map.of(
                "email", ToolKit.prop("string", "the customer's email"),
                "name", ToolKit.prop("string", "the customer's name")),
            List.of("email")),
        ToolKit.annotations("Create a customer", false, false, true),
        call -> {
          Args a = args(call);
          String email = a.nonBlank("email").toLowerCase(Locale.ROOT);
          if (!EMAIL.matcher(email).matches()) {
            throw new ToolError("email must look like name@example.com");
          }
          Optional<String> name = a.optString("name");
          return keyed(
              call,
              "create_customer",
              () -> {
                String id = "cus_" + Keys.sha256Hex(email).substring(0, ID_HEX_CHARS);
                session(call).customer(id);
                Map<String, Object> out = new LinkedHashMap<>();
                out.put("id", id);
                out.put("email", email);
                name.ifPresent(n -> out.put("name", n));
                return ToolKit.ok(out);
              });
        });
  }

  private ExampleTool charge() {
    return money(
        "charge",
        "Charge a customer. Not idempotent by itself: send an idempotency key in _meta (\""
            + IdempotencyLedger.META_KEY
            + "\") and a repeat answers the original charge without charging again.",
        "ch_",
        "succeeded",
        PaymentSession::charged);
  }

  private ExampleTool credit() {
    return money(
        "credit",
        "Credit a customer's balance (a goodwill credit or a refund). Honours an idempotency key in"
            + " _meta like charge.",
        "cr_",
        "credited",
        PaymentSession::credited);
  }

  private interface Recorder {
    void record(PaymentSession s, String id, long cents);
  }

  private ExampleTool money(
      String name, String description, String idPrefix, String status, Recorder record) {
    return ToolKit.tool(
        name,
        description,
        moneySchema(),
        ToolKit.annotations(name.equals("charge") ? "Charge" : "Credit", false, false, false),
        call -> {
          Money m = money(call);
          return keyed(
              call,
              name,
              () -> {
                String id = idPrefix + randomHex();
                record.record(session(call), id, m.cents());
                return ToolKit.ok(m.answer(id, status));
              });
        });
  }

  /** The arguments every money tool takes, checked. */
  private record Money(String customer, long cents, String currency, Optional<String> reason) {
    Map<String, Object> answer(String id, String status) {
      Map<String, Object> out = new LinkedHashMap<>();
      out.put("id", id);
      out.put("customer", customer);
      out.put("amountCents", cents);
      out.put("currency", currency);
      reason.ifPresent(r -> out.put("reason", r));
      out.put("status", status);
      return out;
    }
  }

  private Money money(ToolCall call) {
    Args a = args(call);
    String customer = a.nonBlank("customer");
    if (!CUSTOMER_ID.matcher(customer).matches()) {
      throw new ToolError("unknown customer " + customer + " (ids look like cus_0123456789ab)");
    }
    long cents = a.wholeNumber("amountCents");
    if (cents < 1 || cents > config.maxAmountCents()) {
      throw new ToolError("amountCents must be between 1 and " + config.maxAmountCents());
    }
    String currency = a.nonBlank("currency").toUpperCase(Locale.ROOT);
    if (!CURRENCY.matcher(currency).matches()) {
      throw new ToolError("currency must be a three-letter ISO 4217 code");
    }
    return new Money(customer, cents, currency, a.optString("reason"));
  }

  /**
   * A refund asks for a confirmation before it acts: on 2026-07-28 the first call is answered
   * {@code input_required} with a form whose {@code confirmAmountCents} must repeat the amount, and
   * the re-issue (same arguments, the {@code requestState} echoed) refunds once; a declined form
   * refunds nothing. A 2025 session cannot carry the question: refused there.
   */
  private ExampleTool refund() {
    return ToolKit.tool(
        "refund",
        "Refund an amount to a customer after a person confirms it (2026-07-28 input_required: a"
            + " form repeating the amount). Honours an idempotency key in _meta like charge.",
        moneySchema(),
        ToolKit.annotations("Refund", false, true, false),
        call -> {
          Money m = money(call);
          String state =
              java.util.Base64.getUrlEncoder()
                  .withoutPadding()
                  .encodeToString(
                      ("refund:" + m.customer() + ":" + m.cents() + ":" + m.currency())
                          .getBytes(java.nio.charset.StandardCharsets.UTF_8));
          if (call.requestState().isEmpty()) {
            throw new InputNeeded(
                CONFIRM,
                "Refund "
                    + m.cents()
                    + " "
                    + m.currency()
                    + " cents to "
                    + m.customer()
                    + "? Repeat the amount in confirmAmountCents to confirm.",
                ToolKit.objectSchema(
                    Map.of(
                        "confirmAmountCents",
                        ToolKit.prop("integer", "the amount to refund, in minor units")),
                    List.of("confirmAmountCents")),
                state);
          }
          if (!call.requestState().get().equals(state)) {
            throw new ToolError("requestState does not belong to this refund");
          }
          if (!(call.inputResponses().get(CONFIRM) instanceof Map<?, ?> answer)
              || !"accept".equals(answer.get("action"))) {
            return ToolKit.ok(m.answer("", "not_confirmed"));
          }
          Object confirmed =
              answer.get("content") instanceof Map<?, ?> c ? c.get("confirmAmountCents") : null;
          if (!(confirmed instanceof Number n) || n.longValue() != m.cents()) {
            throw new ToolError(
                "the confirmed amount " + confirmed + " is not the refund's " + m.cents());
          }
          return keyed(
              call,
              "refund",
              () -> {
                String id = "rf_" + randomHex();
                session(call).refunded(id, m.cents());
                return ToolKit.ok(m.answer(id, "refunded"));
              });
        });
  }

  static final String CONFIRM = "confirm";

  private static Map<String, Object> moneySchema() {
    return ToolKit.objectSchema(
        Map.of(
            "customer", ToolKit.prop("string", "a customer id from create_customer"),
            "amountCents", ToolKit.prop("integer", "the amount in the currency's minor unit"),
            "currency", ToolKit.prop("string", "an ISO 4217 code such as EUR"),
            "reason", ToolKit.prop("string", "why, for the statement")),
        List.of("customer", "amountCents", "currency"));
  }

  private ExampleTool ledgerTool() {
    return ToolKit.tool(
        "ledger",
        "Every idempotency key this server process has seen, with how many requests carried it"
            + " and how many times its work was performed (never more than once).",
        ToolKit.objectSchema(Map.of(), List.of()),
        ToolKit.annotations("Idempotency ledger", true, false, true),
        call -> {
          Map<String, Object> keys = new LinkedHashMap<>();
          ledger
              .counts()
              .forEach(
                  (k, c) ->
                      keys.put(
                          k,
                          Map.of(
                              "tool", c.tool(),
                              "requests", c.requests(),
                              "performed", c.performed())));
          return ToolKit.ok(Map.of("keys", keys));
        });
  }

  private ExampleTool sessionSummary() {
    return ToolKit.tool(
        "session_summary",
        "What this MCP session has done: its customers, charges and credits.",
        ToolKit.objectSchema(Map.of(), List.of()),
        ToolKit.annotations("This session's activity", true, false, true),
        call -> ToolKit.ok(session(call).summary(call.sessionId())));
  }

  private CallToolResult keyed(ToolCall call, String tool, Supplier<CallToolResult> work) {
    Optional<String> key = IdempotencyLedger.keyOf(call.meta());
    return key.isPresent() ? ledger.perform(key.get(), tool, call.arguments(), work) : work.get();
  }

  /** The session's state; on 2026-07-28 (no sessions) every call shares the "" one. */
  private PaymentSession session(ToolCall call) {
    return sessions.computeIfAbsent(call.sessionId(), k -> new PaymentSession());
  }

  private Args args(ToolCall call) {
    return new Args(call.arguments(), config.maxTextChars());
  }

  private String randomHex() {
    byte[] b = new byte[RANDOM_ID_BYTES];
    random.nextBytes(b);
    return HexFormat.of().formatHex(b);
  }
}
