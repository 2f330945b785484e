package dev.flows.ops;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.journal.CompletionReason;
import dev.flows.kernel.journal.DurableTasks;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.JournalRecord;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.journal.StepSnapshot;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.lifecycle.StepStatus;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * What a run that is not ended waits for, as people read it: {@code waiting (signal 'approve')},
 * {@code waiting (timer until T)}, {@code waiting (input)}, {@code waiting (mcp task T working)},
 * {@code waiting (mcp tickets/classify)} (a child run), or the reason no worker takes it. The one
 * derivation behind {@code displayStatus} / {@code waitingFor} of {@code runs list}, {@code runs
 * show}, their JSON and the console; the raw {@code status} stays as the journal has it.
 */
final class RunWaits {
  private RunWaits() {}

  /** One wait; {@link #json} and {@link #text} are its two forms. */
  sealed interface Wait {
    /** A body in {@code f.awaitSignal}; {@code until} is the wait's timeout. */
    record Signal(String signal, String until) implements Wait {}

    /** A body in {@code f.sleep}. */
    record Timer(String until) implements Wait {}

    /** A call parked {@code input_required} (in this run or the child it awaits). */
    record Input(RunRef run, String stepId) implements Wait {}

    /** A task-backed MCP call whose task has not ended. */
    record Task(String taskId, String status) implements Wait {}

    /** A body suspended until a child run ends. */
    record Child(RunRef run, String label) implements Wait {}

    /** A ready step no worker takes, with the worker's note why. */
    record Worker(String reason) implements Wait {}
  }

  /** The run's wait: its first step that waits, else a worker's note; empty when it works. */
  static Optional<Wait> of(Journal journal, RunSnapshot run, List<JournalRecord> entries) {
    if (run.status().terminal()) {
      return Optional.empty();
    }
    for (StepSnapshot s : run.steps()) {
      Optional<Wait> w = step(journal, run, s, entries);
      if (w.isPresent()) {
        return w;
      }
    }
    if (run.status() == RunStatus.RUNNING
        && run.steps().stream().noneMatch(s -> s.status() == StepStatus.RUNNING)) {
      return run.waitingReason().map(Wait.Worker::new);
    }
    return Optional.empty();
  }

  /** The run's wait, reading its entries. */
  static Optional<Wait> of(Journal journal, RunSnapshot run) {
    return run.status().terminal()
        ? Optional.empty()
        : of(journal, run, journal.entries(run.runId()));
  }

  /** What step {@code s} of {@code run} waits for; empty when it works, ended or parked. */
  static Optional<Wait> step(
      Journal journal, RunSnapshot run, StepSnapshot s, List<JournalRecord> entries) {
    switch (s.status()) {
      case PARKED -> {
        RunJson.ResolveTarget target = RunJson.resolveTarget(journal, run, s.stepId(), 0);
        return target.input().map(x -> new Wait.Input(target.run(), target.stepId()));
      }
      case RUNNING, READY -> {
        Optional<Wait> task =
            DurableTasks.of(entries, s.stepId())
                .filter(t -> !t.latest().terminal())
                .map(t -> new Wait.Task(t.latest().taskId(), t.latest().status()));
        if (task.isPresent() || !suspended(s)) {
          return task;
        }
        Optional<Wait> body = BodyWait.of(s, entries).map(RunWaits::fromMemo);
        return body.isPresent() ? body : awaitedChild(journal, run);
      }
      default -> {
        return Optional.empty();
      }
    }
  }

  private static boolean suspended(StepSnapshot s) {
    return s.status() == StepStatus.READY
        && s.lastReason().filter(r -> r == CompletionReason.SUSPENDED).isPresent();
  }

  private static Wait fromMemo(ObjectNode w) {
    return w.path("kind").asText().equals("timer")
        ? new Wait.Timer(w.path("until").asText())
        : new Wait.Signal(w.path("signal").asText(), w.path("until").asText());
  }

  /** A suspended body waits for its children still running: the first, or what it waits for. */
  private static Optional<Wait> awaitedChild(Journal journal, RunSnapshot run) {
    for (RunRef id : journal.children(run.runId())) {
      Optional<RunSnapshot> child = journal.run(id).filter(c -> !c.status().terminal());
      if (child.isPresent()) {
        Optional<Wait> inner = of(journal, child.get());
        if (inner.isPresent() && !(inner.get() instanceof Wait.Child)) {
          return inner;
        }
        RunSnapshot c = child.get();
        return Optional.of(new Wait.Child(id, StepLabel.ofRun(c.spec(), c.name(), true)));
      }
    }
    return Optional.empty();
  }

  /** How people read a status: {@code waiting (…)} while a wait holds it, else the status. */
  static String displayStatus(String status, Optional<Wait> wait) {
    return wait.map(w -> "waiting (" + text(w) + ")").orElse(status);
  }

  /** What is waited for, in a few words. */
  static String text(Wait w) {
    return switch (w) {
      case Wait.Signal s -> "signal '" + s.signal() + "'";
      case Wait.Timer t -> "timer until " + t.until();
      case Wait.Input i -> "input";
      case Wait.Task t -> "mcp task " + t.taskId() + " " + t.status();
      case Wait.Child c -> c.label();
      case Wait.Worker r -> r.reason();
    };
  }

  /** The wait as {@code waitingFor}: {@code {kind, …}} with the fields of its kind. */
  static ObjectNode json(Wait w) {
    ObjectNode o = Session.JSON.createObjectNode();
    switch (w) {
      case Wait.Signal s ->
          o.put("kind", "signal").put("signal", s.signal()).put("until", s.until());
      case Wait.Timer t -> o.put("kind", "timer").put("until", t.until());
      case Wait.Input i ->
          o.put("kind", "input").put("runId", i.run().value()).put("stepId", i.stepId());
      case Wait.Task t -> o.put("kind", "task").put("taskId", t.taskId()).put("status", t.status());
      case Wait.Child c ->
          o.put("kind", "child").put("runId", c.run().value()).put("label", c.label());
      case Wait.Worker r -> o.put("kind", "worker").put("reason", r.reason());
    }
    return o;
  }

  /** Sets {@code displayStatus} (always) and {@code waitingFor} (while waiting) on {@code o}. */
  static void put(ObjectNode o, String status, Optional<Wait> wait) {
    o.put("displayStatus", displayStatus(status, wait));
    wait.ifPresent(w -> o.set("waitingFor", json(w)));
  }

  /**
   * Adds {@code displayStatus} and {@code waitingFor} to rows of {@code runs list}: a run that is
   * not ended is read from the journal (opened only then), an ended one shows its status.
   */
  static void annotate(Supplier<Journal> journal, Iterable<JsonNode> rows) {
    for (JsonNode row : rows) {
      ObjectNode r = (ObjectNode) row;
      String status = r.path("status").asText();
      Optional<Wait> wait =
          status.equals(RunStatus.RUNNING.wire()) || status.equals(RunStatus.PARKED.wire())
              ? journal
                  .get()
                  .run(new RunRef(r.path("runId").asText()))
                  .flatMap(run -> of(journal.get(), run))
              : Optional.empty();
      put(r, status, wait);
    }
  }
}
