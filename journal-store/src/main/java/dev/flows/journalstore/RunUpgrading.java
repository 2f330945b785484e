package dev.flows.journalstore;

import dev.flows.journalstore.JournalRows.RunRow;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunUpgrade;
import dev.flows.kernel.journal.RunUpgrades;
import dev.flows.kernel.spec.RunSpecJson;
import java.time.Instant;
import java.util.List;

/** {@code Journal.upgradeRun} in one transaction: the run and its steps locked, then the move. */
final class RunUpgrading {
  private final JournalDb db;

  RunUpgrading(JournalDb db) {
    this.db = db;
  }

  void upgradeRun(RunRef runId, RunUpgrade upgrade, String by) {
    db.tx(
        h -> {
          Instant now = db.now(h);
          RunRow run =
              VerbStatements.lockRun(h, runId).orElseThrow(() -> Refusals.runNotFound(runId));
          List<RunUpgrades.Step> steps =
              VerbStatements.lockSteps(h, runId).stream()
                  .map(s -> new RunUpgrades.Step(s.spec(), s.status(), s.attempts()))
                  .toList();
          RunUpgrades.plan(runId, run.status(), steps, upgrade, by)
              .ifPresent(
                  m -> {
                    VerbStatements.expectOne(
                        h.createUpdate(Sql.text("step_upgrade"))
                            .bind("runId", runId.value())
                            .bind("stepId", m.stepId())
                            .bind("spec", EntryCodec.text(RunSpecJson.writeStep(m.spec())))
                            .bind("route", m.route())
                            .bind("now", now.toString())
                            .execute(),
                        "upgrade run " + runId);
                    VerbStatements.append(h, now, m.entry());
                    VerbStatements.notifyWork(h, runId);
                  });
          return null;
        });
  }
}
