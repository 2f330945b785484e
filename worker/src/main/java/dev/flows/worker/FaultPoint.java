package dev.flows.worker;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Named places where a chaos or crash test can make this process die as if SIGKILLed (no shutdown
 * hooks, no cleanup). Off unless the JVM is started with {@code -Dflows.fault=<point>} (and
 * optionally {@code -Dflows.fault.skip=N} to pass the point N times first): an explicit test
 * setting, never a default.
 */
public enum FaultPoint {
  /** An MCP effect was recorded; the tool has not been called. */
  AFTER_RECORD("after_record"),
  /** The tool call was sent; its result has not been read. */
  DURING_CALL("during_call"),
  /** The tool answered; the effect is not confirmed. */
  AFTER_CALL_BEFORE_CONFIRM("after_call_before_confirm"),
  /** The effect is confirmed; the step is not completed. */
  AFTER_CONFIRM_BEFORE_COMPLETE("after_confirm_before_complete"),
  /** A flow body finished one f call and is about to make the next. */
  BETWEEN_BODY_CALLS("between_body_calls");

  /** The exit status a halted process reports, as a SIGKILLed one would (128 + 9). */
  public static final int HALT_STATUS = 137;

  private static final String ARMED = System.getProperty("flows.fault", "");
  private static final AtomicInteger SKIP =
      new AtomicInteger(Integer.getInteger("flows.fault.skip", 0));

  private final String wire;

  FaultPoint(String wire) {
    this.wire = wire;
  }

  public String wire() {
    return wire;
  }

  /**
   * What reaching a point does in this process before the halt below: the test kit's in-process
   * crash (flows-testing stops the reaching thread and cuts its worker off the journal). Nothing by
   * default.
   */
  private static volatile Consumer<FaultPoint> inProcess = p -> {};

  /** Sets what reaching any point does in this process (the test kit's crash simulation). */
  public static void inProcess(Consumer<FaultPoint> hook) {
    inProcess = hook;
  }

  /** Dies here if this point is armed (after its skips are used up); otherwise does nothing. */
  public void reached() {
    inProcess.accept(this);
    if (!ARMED.equals(wire)) {
      return;
    }
    if (SKIP.getAndDecrement() > 0) {
      return;
    }
    System.err.println("flows: fault point " + wire + " reached; halting");
    System.err.flush();
    Runtime.getRuntime().halt(HALT_STATUS);
  }
}
