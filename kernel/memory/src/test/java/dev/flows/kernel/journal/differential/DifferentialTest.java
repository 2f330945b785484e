package dev.flows.kernel.journal.differential;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flows.kernel.journal.InMemoryJournal;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.ManualClock;
import dev.flows.kernel.lifecycle.TransitionLog;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Instant;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;

/** The differential harness itself: deterministic per seed, and it catches a one-sided change. */
class DifferentialTest {
  private static final String REPLAY = "replay seed %d";

  /** The reference journal held to a second reference journal. */
  private static final Differential.Subject REFERENCE =
      new Differential.Subject() {
        @Override
        public Journal open(ManualClock clock) {
          return new InMemoryJournal(clock);
        }

        @Override
        public TransitionLog transitions(Journal journal) {
          return ((InMemoryJournal) journal).transitions();
        }
      };

  @Test
  void theReferenceJournalAgreesWithItselfAndTheScriptsTakeEveryDeclaredTransition() {
    Differential d = new Differential(REFERENCE, 30, REPLAY);
    for (long seed = 1; seed <= 500; seed++) {
      d.run(seed);
    }
    assertThat(EnumSet.complementOf(EnumSet.copyOf(d.stepTransitionsTaken())))
        .as("step transitions no script reached")
        .isEmpty();
    assertThat(EnumSet.complementOf(EnumSet.copyOf(d.runTransitionsTaken())))
        .as("run transitions no script reached")
        .isEmpty();
  }

  @Test
  void theReferenceJournalAgreesWithItselfOnScriptsOfScheduleVerbs() {
    Differential d = Differential.ofSchedules(REFERENCE, 30, REPLAY);
    for (long seed = 1; seed <= 300; seed++) {
      d.run(seed);
    }
  }

  @Test
  void aJournalWhoseHeartbeatAnswersOneMillisecondLaterIsCaughtWithItsSeedAndReplay() {
    Differential d = new Differential(changedHeartbeat(), 40, REPLAY);
    assertThatThrownBy(
            () -> {
              for (long seed = 1; seed <= 300; seed++) {
                d.run(seed);
              }
            })
        .isInstanceOf(Differential.Divergence.class)
        .satisfies(
            e -> {
              long seed = ((Differential.Divergence) e).seed;
              assertThat(e.getMessage())
                  .contains("the journals differ at seed " + seed + " in the answers to verb")
                  .contains("heartbeat")
                  .contains("replay: replay seed " + seed);
              // The same seed fails again alone: the script is a function of its seed.
              assertThatThrownBy(() -> d.run(seed)).hasMessage(e.getMessage());
            });
  }

  /** The reference journal, except that a heartbeat answers a deadline one millisecond later. */
  private static Differential.Subject changedHeartbeat() {
    return new Differential.Subject() {
      private InMemoryJournal real;

      @Override
      public Journal open(ManualClock clock) {
        real = new InMemoryJournal(clock);
        InMemoryJournal target = real;
        InvocationHandler h =
            (proxy, method, args) -> {
              try {
                Object answer = method.invoke(target, args);
                return method.getName().equals("heartbeat")
                    ? ((Instant) answer).plusMillis(1)
                    : answer;
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            };
        return (Journal)
            Proxy.newProxyInstance(
                Journal.class.getClassLoader(), new Class<?>[] {Journal.class}, h);
      }

      @Override
      public TransitionLog transitions(Journal journal) {
        return real.transitions();
      }
    };
  }
}
