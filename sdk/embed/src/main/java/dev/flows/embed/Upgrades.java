package dev.flows.embed;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.instruction.FlowBodyInstruction;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.spec.RunSpecParser;
import dev.flows.kernel.spec.StepBody;
import dev.flows.sdk.Flow;
import dev.flows.sdk.RunId;
import dev.flows.sdk.runtime.FlowResolver;
import dev.flows.sdk.runtime.LoadedFlow;
import dev.flows.sdk.runtime.ReplayChecker;
import dev.flows.sdk.runtime.RunUpgrader;
import dev.flows.sdk.runtime.SdkConfig;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Supplier;

/** {@link Flows#upgrade}: picks the runs, moves each as {@code flows runs upgrade} does. */
final class Upgrades {
  /** Who {@code run.upgraded} names for a move made through the embedding API. */
  static final String BY = "embed";

  private Upgrades() {}

  static UpgradeReport run(
      Journal journal,
      FlowResolver resolver,
      Supplier<RunQuery> runs,
      LoadedFlow target,
      UpgradeRuns which) {
    Flow<?, ?> code = target.flow();
    String name = code.header().name();
    List<RunId> ids =
        switch (which) {
          case UpgradeRuns.Ids given -> given.ids();
          case UpgradeRuns.FromVersion from ->
              ReplayChecks.listed(runs.get().named(name), true).stream()
                  .filter(id -> from.version().equals(version(journal, new RunRef(id.value()))))
                  .toList();
        };
    RunUpgrader upgrader =
        new RunUpgrader(
            journal,
            new ReplayChecker(journal, resolver, SdkConfig.DEFAULTS, InstantSource.system()));
    List<UpgradeReport.Run> out = new ArrayList<>();
    for (RunId id : ids) {
      out.add(
          report(id, upgrader.upgrade(new RunRef(id.value()), code, target.origin(), BY), name));
    }
    return new UpgradeReport(name, code.header().version(), out);
  }

  private static UpgradeReport.Run report(RunId id, RunUpgrader.Outcome o, String name) {
    return switch (o) {
      case RunUpgrader.Outcome.Upgraded u ->
          new UpgradeReport.Run(id, true, Optional.empty(), OptionalInt.empty(), u.describe());
      case RunUpgrader.Outcome.Refused r ->
          new UpgradeReport.Run(
              id,
              false,
              Optional.of(r.code().wire()),
              r.divergence().map(d -> OptionalInt.of(d.position())).orElse(OptionalInt.empty()),
              r.describe());
    };
  }

  /** The version a run's body is at: the last it was moved to, else the one it started with. */
  private static String version(Journal journal, RunRef run) {
    String moved = null;
    for (var e : journal.entries(run)) {
      if (e.entry() instanceof JournalEntry.RunUpgraded u) {
        moved = u.toVersion();
      }
    }
    if (moved != null) {
      return moved;
    }
    var snapshot =
        journal
            .run(run)
            .orElseThrow(
                () ->
                    new FlowsException(
                        ErrorCode.RUN_NOT_FOUND,
                        "no run " + run.value(),
                        run.value(),
                        "list runs"));
    if (RunSpecParser.parse(snapshot.spec()).steps().getFirst().body()
        instanceof StepBody.Agent agent) {
      return FlowBodyInstruction.of(agent).version();
    }
    return "";
  }
}
