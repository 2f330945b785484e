package dev.flows.sdk;

/**
 * The result of a call issued without waiting (every {@code callAsync}: of a tool, a command, a
 * child flow). The call's position was taken and its child run admitted when it was issued, so a
 * replay finds the same call whatever order the answers came in. Wait for one with {@link #get},
 * for several with {@link Ctx#all} or {@link Ctx#any}.
 */
public interface Pending<T> {
  /**
   * Waits durably for the result, as the synchronous call would: the body waits in memory for a
   * while, then gives its attempt back and is replayed when the call ended. A call whose child run
   * failed throws {@link ChildFailedException}.
   */
  T get();
}
