package dev.flows.sdk.runtime;

import java.time.Duration;

/**
 * Every timeout and limit of the authoring runtime, with named defaults.
 *
 * @param dispatchDeadline how long an {@code f.*} call waits for its child run to be admitted and
 *     its step claimed; past it the child is cancelled by id and the call fails {@code
 *     dispatch_timeout}
 * @param childPoll longest wait between two looks at an awaited child run: a fallback only, since
 *     the body wakes on the child's completion (in-process, or by NOTIFY from another worker)
 * @param rootMaxIterations attempts of a flow body (each crash of its worker uses one)
 * @param mcpMaxIterations attempts of one MCP call's child step
 * @param commandMaxIterations attempts of one {@code f.run} child step
 * @param preflightTimeout connect + tools/list per server during preflight
 * @param suspendAfter how long a body waits on one child run in memory; past it the body gives its
 *     attempt back ({@code StepOutcome.Suspended}: no lease, no thread, no memory held) and is
 *     replayed from the journal when the child ends, so a worker can hold many long waits
 * @param suspendRecheck the latest a suspended body is looked at again even if no completion of its
 *     child woke it (a fallback: the child's end readies it at once)
 * @param maxResidentWaits how many bodies of one runner wait on a child in memory at once; past it
 *     a body gives its attempt back as soon as it would wait (0: every wait suspends at once)
 * @param memoDelay how long a body's {@code f.step} memo may wait, while the body runs on, for the
 *     memos after it before their batch is sent: a body that ends (or reaches anything that depends
 *     on its memos) within it sends them with that, so a short run's memos cost no transaction of
 *     their own; a worker that dies loses at most this much more of a body's steps, which run again
 *     (0: each batch is sent as soon as the one before it is acknowledged)
 */
public record SdkConfig(
    Duration dispatchDeadline,
    Duration childPoll,
    int rootMaxIterations,
    int mcpMaxIterations,
    int commandMaxIterations,
    Duration preflightTimeout,
    Duration suspendAfter,
    Duration suspendRecheck,
    int maxResidentWaits,
    Duration memoDelay) {
  public static final Duration DEFAULT_DISPATCH_DEADLINE = Duration.ofSeconds(30);
  public static final Duration DEFAULT_CHILD_POLL = Duration.ofSeconds(1);
  public static final int DEFAULT_ROOT_MAX_ITERATIONS = 10;
  public static final int DEFAULT_MCP_MAX_ITERATIONS = 5;
  public static final int DEFAULT_COMMAND_MAX_ITERATIONS = 3;
  public static final Duration DEFAULT_PREFLIGHT_TIMEOUT = Duration.ofSeconds(10);
  public static final Duration DEFAULT_SUSPEND_AFTER = Duration.ofSeconds(10);
  public static final Duration DEFAULT_SUSPEND_RECHECK = Duration.ofMinutes(5);
  public static final int DEFAULT_MAX_RESIDENT_WAITS = 1_000;
  public static final Duration DEFAULT_MEMO_DELAY = Duration.ofMillis(5);

  public static final SdkConfig DEFAULTS =
      new SdkConfig(
          DEFAULT_DISPATCH_DEADLINE,
          DEFAULT_CHILD_POLL,
          DEFAULT_ROOT_MAX_ITERATIONS,
          DEFAULT_MCP_MAX_ITERATIONS,
          DEFAULT_COMMAND_MAX_ITERATIONS,
          DEFAULT_PREFLIGHT_TIMEOUT,
          DEFAULT_SUSPEND_AFTER,
          DEFAULT_SUSPEND_RECHECK,
          DEFAULT_MAX_RESIDENT_WAITS,
          DEFAULT_MEMO_DELAY);

  public SdkConfig {
    if (!suspendAfter.isPositive() || !suspendRecheck.isPositive()) {
      throw new IllegalArgumentException("suspendAfter and suspendRecheck must be positive");
    }
    if (maxResidentWaits < 0) {
      throw new IllegalArgumentException("maxResidentWaits must be >= 0");
    }
    if (memoDelay.isNegative()) {
      throw new IllegalArgumentException("memoDelay must be zero or more");
    }
  }

  /** A builder starting from these values: {@code SdkConfig.DEFAULTS.toBuilder()...build()}. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /** Changes some limits of a config; {@link #build} checks them as the constructor does. */
  public static final class Builder {
    private Duration dispatchDeadline;
    private Duration childPoll;
    private int rootMaxIterations;
    private int mcpMaxIterations;
    private int commandMaxIterations;
    private Duration preflightTimeout;
    private Duration suspendAfter;
    private Duration suspendRecheck;
    private int maxResidentWaits;
    private Duration memoDelay;

    private Builder(SdkConfig c) {
      dispatchDeadline = c.dispatchDeadline;
      childPoll = c.childPoll;
      rootMaxIterations = c.rootMaxIterations;
      mcpMaxIterations = c.mcpMaxIterations;
      commandMaxIterations = c.commandMaxIterations;
      preflightTimeout = c.preflightTimeout;
      suspendAfter = c.suspendAfter;
      suspendRecheck = c.suspendRecheck;
      maxResidentWaits = c.maxResidentWaits;
      memoDelay = c.memoDelay;
    }

    public Builder dispatchDeadline(Duration v) {
      dispatchDeadline = v;
      return this;
    }

    public Builder childPoll(Duration v) {
      childPoll = v;
      return this;
    }

    public Builder rootMaxIterations(int v) {
      rootMaxIterations = v;
      return this;
    }

    public Builder mcpMaxIterations(int v) {
      mcpMaxIterations = v;
      return this;
    }

    public Builder commandMaxIterations(int v) {
      commandMaxIterations = v;
      return this;
    }

    public Builder preflightTimeout(Duration v) {
      preflightTimeout = v;
      return this;
    }

    public Builder suspendAfter(Duration v) {
      suspendAfter = v;
      return this;
    }

    public Builder suspendRecheck(Duration v) {
      suspendRecheck = v;
      return this;
    }

    public Builder maxResidentWaits(int v) {
      maxResidentWaits = v;
      return this;
    }

    public Builder memoDelay(Duration v) {
      memoDelay = v;
      return this;
    }

    public SdkConfig build() {
      return new SdkConfig(
          dispatchDeadline,
          childPoll,
          rootMaxIterations,
          mcpMaxIterations,
          commandMaxIterations,
          preflightTimeout,
          suspendAfter,
          suspendRecheck,
          maxResidentWaits,
          memoDelay);
    }
  }
}
