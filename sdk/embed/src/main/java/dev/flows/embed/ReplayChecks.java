package dev.flows.embed;

import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.RunRef;
import dev.flows.sdk.Flow;
import dev.flows.sdk.RunId;
import dev.flows.sdk.runtime.FlowResolver;
import dev.flows.sdk.runtime.ReplayChecker;
import dev.flows.sdk.runtime.ReplayVerdict;
import dev.flows.sdk.runtime.SdkConfig;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.function.Supplier;

/** {@link Flows#replayCheck}: picks the runs, replays each, reports. */
final class ReplayChecks {
  private ReplayChecks() {}

  static ReplayReport run(
      Journal journal,
      FlowResolver resolver,
      Supplier<RunQuery> runs,
      Flow<?, ?> flow,
      ReplayCheck which) {
    String name = flow.header().name();
    List<RunId> ids =
        switch (which) {
          case ReplayCheck.Ids given -> given.ids();
          case ReplayCheck.Active a -> listed(runs.get().named(name), true);
          case ReplayCheck.All a -> listed(runs.get().named(name), false);
        };
    ReplayChecker checker =
        new ReplayChecker(journal, resolver, SdkConfig.DEFAULTS, InstantSource.system());
    List<ReplayReport.Run> checked = new ArrayList<>();
    for (RunId id : ids) {
      checked.add(report(id, checker.check(new RunRef(id.value()), flow)));
    }
    return new ReplayReport(name, checked);
  }

  static ReplayReport.Run report(RunId id, ReplayVerdict verdict) {
    return switch (verdict) {
      case ReplayVerdict.Compatible c ->
          new ReplayReport.Run(id, true, OptionalInt.empty(), c.describe());
      case ReplayVerdict.Diverges d ->
          new ReplayReport.Run(id, false, OptionalInt.of(d.position()), d.describe());
    };
  }

  /** Every root run of {@code query}, oldest first; only those not ended when {@code active}. */
  static List<RunId> listed(RunQuery query, boolean active) {
    List<RunInfo> all = new ArrayList<>();
    List<RunInfo> page = query.list(RunQuery.MAX_PAGE);
    while (!page.isEmpty()) {
      all.addAll(page);
      page = query.after(page.getLast()).list(RunQuery.MAX_PAGE);
    }
    return all.reversed().stream()
        .filter(r -> !active || !r.state().ended())
        .map(RunInfo::id)
        .toList();
  }
}
