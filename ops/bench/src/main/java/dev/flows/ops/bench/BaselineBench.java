package dev.flows.ops.bench;

import static dev.flows.ops.bench.Bench.log;

/** This Postgres's own limits: INSERT+COMMIT and SKIP LOCKED claims at each concurrency. */
record BaselineBench(Bench.Plan plan, Pg pg, Report report) implements Section {
  @Override
  public void run() throws Exception {
    log("baseline");
    String url = pg.fresh("bench_baseline", false);
    for (int c : plan.concurrencies()) {
      Baseline.prepare(url, 20_000 + (int) (plan.baselineSeconds() * 15_000));
      Baseline.Result ins = Baseline.inserts(url, c, plan.baselineSeconds());
      Baseline.Result claim = Baseline.claims(url, c, plan.baselineSeconds());
      report.baseline(c, ins, claim);
      log("  c=" + c + " insert " + (int) ins.perSecond() + "/s claim " + (int) claim.perSecond());
    }
    pg.drop("bench_baseline");
  }
}
