import dev.flows.sdk.Ctx;
import dev.flows.sdk.Flow;
import dev.flows.sdk.FlowHeader;
import java.time.Duration;
import java.util.Optional;

/**
 * An expense claim approved by a person, written against the typed API: a record in, a record out,
 * a typed step and a typed signal. A claim above the threshold waits for the signal "decide"
 * (`flows runs signal RUN decide '{"approved":true,"by":"ann"}'`) for at most its approval timeout,
 * holding no thread, lease or memory meanwhile; a smaller one is approved at once. It calls no
 * server.
 *
 * <p>Input: {"employee": "ann", "amountCents": 25000, "approvalTimeout": "PT24H"} (the timeout is
 * optional).
 */
public class Expense implements Flow<Expense.Claim, Expense.Outcome> {
  /** What is claimed. */
  public record Claim(String employee, long amountCents, String approvalTimeout) {}

  /** The payload of the signal "decide". */
  public record Decision(boolean approved, String by) {}

  /** How the claim ended: {@code status} is approved, rejected or expired. */
  public record Outcome(String employee, long amountCents, String status, String by) {}

  /** Claims up to this much are approved without a person. */
  static final long THRESHOLD_CENTS = 10_000;

  @Override
  public FlowHeader header() {
    return FlowHeader.named("expense").version("1").build();
  }

  @Override
  public Outcome run(Ctx f, Claim claim) {
    long cents = f.step("amount", Long.class, () -> Math.max(0, claim.amountCents()));
    if (cents <= THRESHOLD_CENTS) {
      return new Outcome(claim.employee(), cents, "approved", "policy");
    }
    Duration timeout =
        Duration.parse(claim.approvalTimeout() == null ? "PT24H" : claim.approvalTimeout());
    Optional<Decision> decision = f.awaitSignal("decide", Decision.class, timeout);
    if (decision.isEmpty()) {
      return new Outcome(claim.employee(), cents, "expired", "nobody");
    }
    Decision d = decision.get();
    return new Outcome(claim.employee(), cents, d.approved() ? "approved" : "rejected", d.by());
  }
}
