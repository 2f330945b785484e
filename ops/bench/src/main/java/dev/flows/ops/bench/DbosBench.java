package dev.flows.ops.bench;

import static dev.flows.ops.bench.Bench.log;

import dev.dbos.transact.DBOS;
import dev.dbos.transact.config.DBOSConfig;
import java.util.List;
import java.util.Optional;

/**
 * The short-runs workloads of {@link ShortRunsBench} (its f.step shapes) on DBOS Transact Java, on
 * the same Postgres in a database of its own: {@code c} client threads each start a workflow
 * ({@code DBOS.startWorkflow}) and wait for its result ({@code getResult}), DBOS on its defaults.
 * When DBOS is absent or cannot start, the report says why instead.
 */
record DbosBench(Bench.Plan plan, Pg pg, Report report) implements Section {
  static final String DATABASE = "bench_dbos";

  @Override
  public void run() throws Exception {
    log("short runs on DBOS Transact " + version());
    try {
      measure();
    } catch (Exception | LinkageError e) {
      // The baseline is optional: its absence is reported, never fatal to the bench.
      String why =
          (e.getClass().getSimpleName() + ": " + e.getMessage()).lines().findFirst().orElse("");
      log("  dbos skipped: " + why);
      report.dbosSkipped(why);
    } finally {
      pg.drop(DATABASE);
    }
  }

  private static String version() {
    try {
      return DBOS.version();
    } catch (LinkageError e) {
      return "(absent)";
    }
  }

  /** DBOS as its README assembles it, on its defaults, with the bench's workflow registered. */
  private record Dbos(DBOS dbos, DbosFlows.Steps steps) implements AutoCloseable {
    static Dbos launch(String url) {
      DBOSConfig config = DBOSConfig.defaults("flows-bench").withDatabaseUrl(withoutQuery(url));
      Optional<String> user = param(url, "user");
      Optional<String> password = param(url, "password");
      if (user.isPresent()) {
        config = config.withDbUser(user.get());
      }
      // DBOS requires a password even where the server asks for none (trust).
      config = config.withDbPassword(password.orElse(""));
      DBOS dbos = new DBOS(config);
      try {
        DbosFlows.Steps steps =
            dbos.registerProxy(DbosFlows.Steps.class, new DbosFlows.StepsImpl(dbos));
        dbos.launch();
        return new Dbos(dbos, steps);
      } catch (RuntimeException e) {
        dbos.close();
        throw e;
      }
    }

    ClientLoad.Client client(int n) {
      return id -> {
        var handle = dbos.startWorkflow(() -> steps.steps(n));
        handle.getResult();
        return handle.workflowId();
      };
    }

    @Override
    public void close() {
      dbos.close();
    }
  }

  private void measure() throws Exception {
    String url = pg.fresh(DATABASE, false);
    long perRead = ClientLoad.perRead(pg, url);
    int warmC = Math.min(4, plan.concurrencies().getLast());
    List<ShortRunsBench.Shape> shapes =
        ShortRunsBench.shapes(plan.mode()).stream()
            .filter(s -> !s.mcp() && !s.startedElsewhere())
            .toList();
    try (Dbos d = Dbos.launch(url)) {
      for (ShortRunsBench.Shape s : shapes) {
        Runs.warmUp(
            plan.warmupSeconds(),
            () -> ClientLoad.run(warmC, 2 * warmC, "warm", d.client(s.calls())));
      }
    }
    long fixed = ClientLoad.commitsOver(pg, url, perRead, () -> Dbos.launch(url).close());
    ClientLoad.Database db = new ClientLoad.Database(pg, url, perRead);
    for (ShortRunsBench.Shape s : shapes) {
      for (int c : plan.concurrencies()) {
        ClientLoad.Counted counted =
            db.measure(
                fixed,
                plan.mode(),
                c,
                "m",
                () -> {
                  Dbos d = Dbos.launch(url);
                  return new ClientLoad.Opened(d.client(s.calls()), d);
                });
        ClientLoad.Load load = counted.load();
        double perRun = counted.commitsPerRun();
        report.dbos(
            new ShortRunsBench.Cell(
                s.label(),
                s.calls(),
                c,
                load.samples().size(),
                load.unanswered(),
                load.seconds(),
                perRun,
                List.of(load.total())));
        log(
            "  dbos "
                + s.label()
                + " c="
                + c
                + " "
                + (int) load.runsPerSecond()
                + " runs/s, "
                + Tables.f1(perRun)
                + " commits/run");
      }
    }
  }

  private static String withoutQuery(String url) {
    int q = url.indexOf('?');
    return q < 0 ? url : url.substring(0, q);
  }

  private static Optional<String> param(String url, String name) {
    int q = url.indexOf('?');
    if (q < 0) {
      return Optional.empty();
    }
    for (String kv : url.substring(q + 1).split("&")) {
      int eq = kv.indexOf('=');
      if (eq > 0 && kv.substring(0, eq).equals(name)) {
        return Optional.of(
            java.net.URLDecoder.decode(
                kv.substring(eq + 1), java.nio.charset.StandardCharsets.UTF_8));
      }
    }
    return Optional.empty();
  }
}
