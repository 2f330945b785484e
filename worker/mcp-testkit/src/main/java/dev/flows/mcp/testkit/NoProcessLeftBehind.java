package dev.flows.mcp.testkit;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test class that leaves a process it started running after its last test (and its
 * {@code @AfterAll}): every process under this JVM that was not there before the class. It ends
 * them too, so that one leak does not outlive the build.
 */
public final class NoProcessLeftBehind implements BeforeAllCallback, AfterAllCallback {
  /** A process stopping on its own (a command's JVM writing its exit) gets this long. */
  private static final Duration SETTLE = Duration.ofSeconds(10);

  /** How long a process left behind gets to stop on SIGTERM before it is killed. */
  private static final Duration LEFT_PATIENCE = Duration.ofSeconds(10);

  private static final ExtensionContext.Namespace NS =
      ExtensionContext.Namespace.create(NoProcessLeftBehind.class);

  @Override
  public void beforeAll(ExtensionContext context) {
    context.getStore(NS).put("before", pids());
  }

  @Override
  public void afterAll(ExtensionContext context) throws InterruptedException {
    @SuppressWarnings("unchecked")
    Set<Long> before = context.getStore(NS).get("before", Set.class);
    long until = System.nanoTime() + SETTLE.toNanos();
    List<ProcessHandle> left = started(before);
    while (!left.isEmpty() && System.nanoTime() < until) {
      Thread.sleep(100);
      left = started(before);
    }
    if (!left.isEmpty()) {
      String names =
          left.stream()
              .map(NoProcessLeftBehind::describe)
              .collect(Collectors.joining("\n  ", "\n  ", ""));
      end(left);
      throw new AssertionError(
          context.getDisplayName() + " left processes running after its tests:" + names);
    }
  }

  /** Every process under this JVM now. */
  static Set<Long> pids() {
    return ProcessHandle.current()
        .descendants()
        .map(ProcessHandle::pid)
        .collect(Collectors.toSet());
  }

  private static List<ProcessHandle> started(Set<Long> before) {
    return ProcessHandle.current()
        .descendants()
        .filter(h -> !before.contains(h.pid()))
        .filter(ProcessHandle::isAlive)
        .toList();
  }

  /** SIGTERM to each of {@code left} still alive, SIGKILL to those alive after a while. */
  public static void end(List<ProcessHandle> left) {
    left.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroy);
    long until = System.nanoTime() + LEFT_PATIENCE.toNanos();
    for (ProcessHandle h : left) {
      long wait = Math.max(0, until - System.nanoTime());
      try {
        h.onExit().get(wait, TimeUnit.NANOSECONDS);
      } catch (Exception e) {
        h.destroyForcibly();
      }
    }
  }

  /** How a process shows in a failure message: its pid and command line. */
  public static String describe(ProcessHandle h) {
    return h.pid() + " " + h.info().commandLine().orElse(h.info().command().orElse("?"));
  }
}
