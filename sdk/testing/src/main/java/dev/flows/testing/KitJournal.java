package dev.flows.testing;

import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.StartedRun;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The environment's journal as one user of it sees it: every verb passes to the shared journal, the
 * root runs admitted through it are noted, and once {@link #sever}ed every verb fails, as the
 * journal does for a process that died (the crashed worker writes nothing more).
 */
final class KitJournal {
  private final AtomicBoolean severed = new AtomicBoolean();
  private final Set<RunRef> admitted = ConcurrentHashMap.newKeySet();
  private final Journal view;

  KitJournal(Journal shared) {
    this.view =
        (Journal)
            Proxy.newProxyInstance(
                Journal.class.getClassLoader(),
                new Class<?>[] {Journal.class},
                (proxy, method, args) -> {
                  if (method.getDeclaringClass() == Object.class) {
                    return method.getName().equals("equals")
                        ? proxy == args[0]
                        : method.invoke(this, args);
                  }
                  if (severed.get()) {
                    throw new IllegalStateException("this worker crashed (simulated by the kit)");
                  }
                  Object answer;
                  try {
                    answer = method.invoke(shared, args);
                  } catch (InvocationTargetException e) {
                    throw e.getCause();
                  }
                  if (method.getName().equals("admit") && answer instanceof StartedRun s) {
                    admitted.add(s.runId());
                  }
                  return answer;
                });
  }

  Journal journal() {
    return view;
  }

  /** The runs admitted through this view (the test's root runs, for the client's view). */
  Set<RunRef> admitted() {
    return Set.copyOf(admitted);
  }

  void sever() {
    severed.set(true);
  }
}
