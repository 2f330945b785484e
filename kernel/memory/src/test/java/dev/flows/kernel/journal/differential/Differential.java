package dev.flows.kernel.journal.differential;

import dev.flows.kernel.FlowsException;
import dev.flows.kernel.journal.InMemoryJournal;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.JournalRecord;
import dev.flows.kernel.journal.ManualClock;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.lifecycle.RunTransition;
import dev.flows.kernel.lifecycle.StepTransition;
import dev.flows.kernel.lifecycle.TransitionLog;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Holds a journal to the reference journal ({@link InMemoryJournal}): a seeded script of random
 * journal verbs ({@link Verbs#ALL}) runs against both, on one {@link ManualClock}, and after every
 * verb their answers (or refusal codes) must be equal; at the end, so must every run's snapshot,
 * its children, its journal entries (types, order, fields and times; the sequence numbers, which
 * count other scripts' entries too, compared by rank) and the transitions each journal took.
 */
public final class Differential {
  /** The journal held to the reference. */
  public interface Subject {
    /** A journal with no runs in it (for one script), whose every "now" is {@code clock}'s. */
    Journal open(ManualClock clock);

    /** The transitions {@code journal} (one {@link #open} answered) has taken so far. */
    TransitionLog transitions(Journal journal);
  }

  /** A difference between the journals, with the seed and the command that replays it. */
  public static final class Divergence extends AssertionError {
    public final long seed;

    Divergence(long seed, String message) {
      super(message);
      this.seed = seed;
    }
  }

  /** Where every script's clock starts (whole milliseconds, as Postgres keeps microseconds). */
  public static final Instant START = Instant.parse("2030-01-01T00:00:00Z");

  private final Subject subject;
  private final int verbsPerScript;
  private final String replay;
  private final List<Verbs.Verb> verbs;
  private final Set<StepTransition> stepsTaken = EnumSet.noneOf(StepTransition.class);
  private final Set<RunTransition> runsTaken = EnumSet.noneOf(RunTransition.class);

  /**
   * @param replay the command that replays one seed, with {@code %d} where the seed goes
   */
  public Differential(Subject subject, int verbsPerScript, String replay) {
    this(subject, verbsPerScript, replay, Verbs.ALL);
  }

  private Differential(Subject subject, int verbsPerScript, String replay, List<Verbs.Verb> verbs) {
    this.subject = subject;
    this.verbsPerScript = verbsPerScript;
    this.replay = replay;
    this.verbs = verbs;
  }

  /** Scripts of the schedule verbs ({@link Verbs#SCHEDULES}) instead of every verb. */
  public static Differential ofSchedules(Subject subject, int verbsPerScript, String replay) {
    return new Differential(subject, verbsPerScript, replay, Verbs.SCHEDULES);
  }

  /** The step transitions the scripts run so far made the journals take. */
  public Set<StepTransition> stepTransitionsTaken() {
    return stepsTaken.isEmpty() ? EnumSet.noneOf(StepTransition.class) : EnumSet.copyOf(stepsTaken);
  }

  /** The run transitions the scripts run so far made the journals take. */
  public Set<RunTransition> runTransitionsTaken() {
    return runsTaken.isEmpty() ? EnumSet.noneOf(RunTransition.class) : EnumSet.copyOf(runsTaken);
  }

  /** An answer: its normal text, and the reference's value when the verb was not refused. */
  private record Answer(String text, Optional<Object> value) {}

  /** Runs the script of {@code seed}; throws {@link Divergence} at the first difference. */
  public void run(long seed) {
    ManualClock clock = new ManualClock(START);
    InMemoryJournal reference = new InMemoryJournal(clock);
    Journal other = subject.open(clock);
    TransitionLog otherLog = subject.transitions(other);
    Map<StepTransition, Long> stepsBefore = otherLog.stepCounts();
    Map<RunTransition, Long> runsBefore = otherLog.runCounts();
    Script script = new Script(seed, clock);
    List<String> log = new ArrayList<>();
    for (int i = 1; i <= verbsPerScript; i++) {
      Verbs.Call call = next(script);
      log.add(i + ". " + call.description());
      call.before().run();
      Answer expected = answer(reference, call);
      Answer actual = answer(other, call);
      if (!expected.text().equals(actual.text())) {
        throw divergence(seed, log, "answers to verb " + i, expected.text(), actual.text());
      }
      expected.value().ifPresent(call.learn());
    }
    log.add("(end of script: runs, children, entries and transitions compared)");
    Set<RunRef> runs = withChildren(reference, script.runs);
    Map<RunRef, String> referenceEntries = entries(reference, runs);
    Map<RunRef, String> otherEntries = entries(other, runs);
    for (RunRef id : runs) {
      same(seed, log, "snapshot of " + id, Normal.of(reference.run(id)), Normal.of(other.run(id)));
      same(
          seed,
          log,
          "children of " + id,
          Normal.of(reference.children(id)),
          Normal.of(other.children(id)));
      same(seed, log, "entries of " + id, referenceEntries.get(id), otherEntries.get(id));
    }
    same(
        seed,
        log,
        "step transitions taken",
        Normal.of(reference.transitions().stepCounts()),
        Normal.of(taken(stepsBefore, otherLog.stepCounts())));
    same(
        seed,
        log,
        "run transitions taken",
        Normal.of(reference.transitions().runCounts()),
        Normal.of(taken(runsBefore, otherLog.runCounts())));
    reference.transitions().stepCounts().forEach((t, n) -> addIf(stepsTaken, t, n));
    reference.transitions().runCounts().forEach((t, n) -> addIf(runsTaken, t, n));
  }

  private static <T> void addIf(Set<T> set, T t, long n) {
    if (n > 0) {
      set.add(t);
    }
  }

  private Verbs.Call next(Script s) {
    int total = verbs.stream().mapToInt(Verbs.Verb::weight).sum();
    while (true) {
      int r = s.random.nextInt(total);
      for (Verbs.Verb v : verbs) {
        r -= v.weight();
        if (r < 0) {
          Optional<Verbs.Call> call = v.make().apply(s);
          if (call.isPresent()) {
            return call.get();
          }
          break;
        }
      }
    }
  }

  private static Answer answer(Journal journal, Verbs.Call call) {
    try {
      Object value = call.apply().apply(journal);
      return new Answer(Normal.of(value), Optional.of(value));
    } catch (FlowsException e) {
      return new Answer("refused " + e.code().wire(), Optional.empty());
    } catch (RuntimeException e) {
      return new Answer("threw " + e, Optional.empty());
    }
  }

  /** The script's runs and, recursively, every child either journal lists for them. */
  private static Set<RunRef> withChildren(Journal journal, Set<RunRef> runs) {
    Set<RunRef> all = new LinkedHashSet<>(runs);
    List<RunRef> todo = new ArrayList<>(runs);
    while (!todo.isEmpty()) {
      for (RunRef child : journal.children(todo.removeLast())) {
        if (all.add(child)) {
          todo.add(child);
        }
      }
    }
    return all;
  }

  /**
   * Each run's entries, in order, each with its place among all the script's entries (by sequence
   * number: the numbers themselves also count other scripts' entries in a shared journal).
   */
  private static Map<RunRef, String> entries(Journal journal, Set<RunRef> runs) {
    Map<RunRef, List<JournalRecord>> byRun = new HashMap<>();
    List<Long> seqs = new ArrayList<>();
    for (RunRef id : runs) {
      List<JournalRecord> records = journal.entries(id);
      byRun.put(id, records);
      records.forEach(r -> seqs.add(r.seq()));
    }
    seqs.sort(Comparator.naturalOrder());
    Map<Long, Integer> rank = new HashMap<>();
    for (int i = 0; i < seqs.size(); i++) {
      rank.put(seqs.get(i), i + 1);
    }
    Map<RunRef, String> text = new HashMap<>();
    byRun.forEach(
        (id, records) -> {
          StringBuilder out = new StringBuilder();
          for (JournalRecord r : records) {
            out.append("\n    #")
                .append(rank.get(r.seq()))
                .append(' ')
                .append(r.at())
                .append(' ')
                .append(Normal.of(r.entry()));
          }
          text.put(id, out.toString());
        });
    return text;
  }

  private static <T> Map<T, Long> taken(Map<T, Long> before, Map<T, Long> after) {
    Map<T, Long> d = new HashMap<>();
    after.forEach((t, n) -> d.put(t, n - before.getOrDefault(t, 0L)));
    return d;
  }

  private void same(long seed, List<String> log, String what, String expected, String actual) {
    if (!expected.equals(actual)) {
      throw divergence(seed, log, what, expected, actual);
    }
  }

  private Divergence divergence(
      long seed, List<String> log, String what, String expected, String actual) {
    return new Divergence(
        seed,
        "the journals differ at seed "
            + seed
            + " in the "
            + what
            + "\n  reference (in memory): "
            + expected
            + "\n  subject:               "
            + actual
            + "\nreplay: "
            + replay.formatted(seed)
            + "\nscript:\n  "
            + String.join("\n  ", log));
  }
}
