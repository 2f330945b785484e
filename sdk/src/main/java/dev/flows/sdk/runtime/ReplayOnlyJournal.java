package dev.flows.sdk.runtime;

import dev.flows.kernel.journal.Journal;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Set;

/**
 * The journal a replay check runs a body against: it reads the run's journal and writes nothing.
 * Every verb that reads passes through; any other (an admission, a memo, a signal taken, a lease, a
 * cancel) ends the check there, as the point where the run would go past its journal. The body
 * runtime asks {@link Marker} first, so a call with nothing journaled stops before it does anything
 * (a step's body is not run, no server is asked).
 */
final class ReplayOnlyJournal {
  /** The verbs of {@link Journal} that only read. */
  private static final Set<String> READS =
      Set.of(
          "run",
          "entries",
          "children",
          "schedule",
          "schedules",
          "scheduleEntries",
          "watchRun",
          "untilNextLeaseDeadline",
          "untilNextClaimable",
          "waitingForConnection");

  /** What a replay check's journal is besides a {@link Journal}. */
  interface Marker {
    /** The end of the journal: the body makes {@code call} at {@code position}, not journaled. */
    JournalEnd end(int position, String call);
  }

  /**
   * Unwinds the body at the journal's end. An {@link Error}, so a body's {@code catch (Exception
   * e)} does not swallow it.
   */
  static final class JournalEnd extends Error {
    final int position;
    final String call;

    JournalEnd(int position, String call) {
      super(
          "the replay reached the journal's end at call #" + position + ": " + call,
          null,
          false,
          false);
      this.position = position;
      this.call = call;
    }
  }

  private ReplayOnlyJournal() {}

  static Journal over(Journal journal) {
    InvocationHandler handler =
        (proxy, method, args) -> {
          if (method.getDeclaringClass() == Marker.class) {
            return new JournalEnd((Integer) args[0], (String) args[1]);
          }
          if (method.getDeclaringClass() == Object.class) {
            return objectMethod(proxy, method, args);
          }
          if (!READS.contains(method.getName())) {
            throw new JournalEnd(0, "journal write " + method.getName());
          }
          try {
            return method.invoke(journal, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        };
    return (Journal)
        Proxy.newProxyInstance(
            ReplayOnlyJournal.class.getClassLoader(),
            new Class<?>[] {Journal.class, Marker.class},
            handler);
  }

  private static Object objectMethod(Object proxy, Method method, Object[] args) {
    return switch (method.getName()) {
      case "equals" -> proxy == args[0];
      case "hashCode" -> System.identityHashCode(proxy);
      default -> "replay-only journal";
    };
  }
}
