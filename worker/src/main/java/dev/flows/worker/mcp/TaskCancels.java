package dev.flows.worker.mcp;

import dev.flows.kernel.instruction.McpCallInstruction;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.journal.TaskToCancel;
import dev.flows.kernel.journal.WorkerId;
import dev.flows.kernel.mcp.McpTransportPort;
import dev.flows.kernel.spec.RunSpecParser;
import dev.flows.kernel.spec.StepBody;
import dev.flows.kernel.spec.StepSpec;
import dev.flows.mcp.client.McpSessions;
import dev.flows.worker.TransientFaults;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Cancels the tasks of runs that ended while their task still ran (a canceled run, a failed one):
 * no worker holds such a step any more, so a worker's reconciler sweeps for them ({@link
 * Journal#tasksToCancel}), sends {@code tasks/cancel} and journals that it did ({@link
 * Journal#noteTaskCancel}). A server that refuses the cancel (the task ended, or it forgot it) has
 * nothing left to cancel and the note is journaled too; a cancel that did not reach the server is
 * tried again next sweep. Any number of workers may sweep: the note is once per task, and a second
 * {@code tasks/cancel} of a cancelled task is refused by the server, harmlessly.
 */
public final class TaskCancels implements Runnable {
  private static final Logger LOG = LoggerFactory.getLogger(TaskCancels.class);

  /** Tasks cancelled per sweep at most; the rest wait for the next one. */
  public static final int BATCH = 50;

  private final Journal journal;
  private final McpSessions sessions;
  private final String by;
  private final AtomicBoolean sweeping = new AtomicBoolean();

  public TaskCancels(Journal journal, McpSessions sessions, WorkerId worker) {
    this.journal = journal;
    this.sessions = sessions;
    this.by = "worker:" + worker.value();
  }

  /** Starts one sweep on a thread of its own unless one still runs. */
  @Override
  public void run() {
    if (!sweeping.compareAndSet(false, true)) {
      return;
    }
    Thread.ofVirtual()
        .name("flows-task-cancels")
        .start(
            () -> {
              try {
                sweep();
              } catch (RuntimeException e) {
                TransientFaults.log(LOG, "cancelling the tasks of ended runs failed", e);
              } finally {
                sweeping.set(false);
              }
            });
  }

  /** Cancels what the journal says is owed now; answers how many were journaled. */
  public int sweep() {
    int done = 0;
    for (TaskToCancel t : journal.tasksToCancel(BATCH)) {
      try {
        if (cancel(t)) {
          done++;
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return done;
      }
    }
    return done;
  }

  private boolean cancel(TaskToCancel t) throws InterruptedException {
    Optional<RunSnapshot> run = journal.run(t.runId());
    Optional<StepSpec> step = run.flatMap(r -> RunSpecParser.parse(r.spec()).step(t.stepId()));
    if (step.isEmpty() || !(step.get().body() instanceof StepBody.Agent agent)) {
      return false;
    }
    McpCallInstruction in = McpCallInstruction.of(agent);
    try {
      McpTransportPort session = sessions.session(in.connection());
      session
          .cancelTask(t.taskId())
          .get(sessions.limits().callTimeout().toMillis() * 2, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      throw e;
    } catch (Exception e) {
      if (!TaskCalls.refusedByServer(e)) {
        LOG.warn(
            "could not cancel task {} of {}/{}; trying again next sweep: {}",
            t.taskId(),
            t.runId().value(),
            t.stepId(),
            e.toString());
        return false;
      }
    }
    return journal.noteTaskCancel(
        t.runId(), t.stepId(), t.taskId(), "its run ended " + run.get().status().wire(), by);
  }
}
