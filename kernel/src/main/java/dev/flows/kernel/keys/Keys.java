package dev.flows.kernel.keys;

import dev.flows.kernel.journal.RunRef;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** Deterministic keys. Pure functions: the same inputs give the same key on every machine. */
public final class Keys {
  private Keys() {}

  /**
   * {@code hex(sha256(run_id ‖ 0x00 ‖ step_id))}: identical for every attempt of a step, so a
   * server that honours idempotency keys sees one key however often the step is retried. The
   * separator keeps ("ab","c") and ("a","bc") apart.
   */
  public static String idempotencyKey(RunRef runId, String stepId) {
    return sha256Hex(runId.value() + "\u0000" + stepId);
  }

  /** Unique per (run, step, attempt); the attempt number makes each attempt's lease distinct. */
  public static String leaseId(RunRef runId, String stepId, int attempt) {
    return "lease_"
        + sha256Hex(runId.value() + "\u0000" + stepId + "\u0000" + attempt).substring(0, 32);
  }

  /** A deterministic child run id, derived from its parent and its position in the parent. */
  public static RunRef childRunId(RunRef parent, String position) {
    return new RunRef("child_" + sha256Hex(parent.value() + "\u0000" + position).substring(0, 40));
  }

  public static String sha256Hex(String s) {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      return HexFormat.of().formatHex(md.digest(s.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK ships SHA-256", e);
    }
  }
}
