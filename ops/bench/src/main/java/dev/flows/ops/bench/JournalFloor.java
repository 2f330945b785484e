package dev.flows.ops.bench;

import static dev.flows.ops.bench.Bench.log;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PositionalSql;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.journalstore.Sql;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.ClaimRequest;
import dev.flows.kernel.journal.ClaimedAttempt;
import dev.flows.kernel.journal.ClaimedEffect;
import dev.flows.kernel.journal.EffectElection;
import dev.flows.kernel.journal.LeaseToken;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.journal.StepOutcome;
import dev.flows.kernel.journal.WorkerId;
import dev.flows.kernel.keys.Keys;
import dev.flows.kernel.mcp.McpReceipt;
import dev.flows.kernel.spec.BackoffPolicy;
import dev.flows.kernel.spec.RecoveryMode;
import dev.flows.kernel.spec.RunSpec;
import dev.flows.kernel.spec.StepBody;
import dev.flows.kernel.spec.StepKind;
import dev.flows.kernel.spec.StepSpec;
import dev.flows.sdk.runtime.Lowering;
import dev.flows.sdk.runtime.SdkConfig;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The journal writes the engine makes for a call, made without the engine: no flow, no body, no
 * worker, no MCP server. They bound what any engine built on this journal format can reach on this
 * machine, so RESULTS.md can tell how much of a miss is the engine's and how much is the journal's.
 *
 * <ul>
 *   <li>the memo statement: {@code memo_fast_path.sql}, the statement a batch of {@code f.step}
 *       memos is written with, sent by JDBC with one memo each, every thread its own autocommit
 *       connection and its own claimed run (no Jdbi, no pool, no group commit);
 *   <li>the memo verb: {@code PostgresJournal.recordConfirmedEffect} from c threads, each its own
 *       claimed run, group commit on (the engine's path below the body);
 *   <li>a durable call's two statements: {@code admit} electing then {@code confirmAndComplete} of
 *       a one-step MCP child, back to back, as an inline {@code f.mcp} call makes them around the
 *       server's answer;
 *   <li>no-op attempts: a backlog of one-step deterministic runs drained by c threads, each attempt
 *       claimed, renewed once and completed, as a worker with a no-op executor makes them.
 * </ul>
 */
final class JournalFloor {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  private static final String MEMO_SQL = "memo_fast_path";
  private static final String BODY_STEP = "body";

  /** The most a backlog drain may take before it counts as stuck. */
  private static final Duration DRAIN_LIMIT = Duration.ofMinutes(5);

  /** Longer than any measurement here: no lease may lapse while it is being written under. */
  private static final Duration LEASE = Duration.ofMinutes(30);

  /** What a memo holds in the bench's f.step flow: a step name and a small value. */
  private static final String MEMO_OUTPUT = "{\"name\":\"s\",\"value\":12}";

  private JournalFloor() {}

  /**
   * The section ({@code floor}): the engine's journal writes made without the engine, what the
   * f.step and f.mcp targets would measure if the engine around the journal cost nothing.
   */
  static Section section(Bench.Plan plan, Pg pg, Report report) {
    return () -> {
      log("journal floor (the engine's writes without the engine)");
      String url = pg.fresh("bench_floor", true);
      double warm = Math.min(1.0, plan.warmupSeconds());
      try (PostgresJournal journal = PostgresJournal.connect(JournalStoreConfig.forUrl(url))) {
        for (int c : plan.concurrencies()) {
          JournalFloor.memoStatements(url, journal, c, warm);
          Baseline.Result statement =
              JournalFloor.memoStatements(url, journal, c, plan.baselineSeconds());
          JournalFloor.memoVerbs(journal, c, warm);
          Baseline.Result verb = JournalFloor.memoVerbs(journal, c, plan.baselineSeconds());
          report.memoFloor(c, statement, verb);
          log(
              "  c="
                  + c
                  + " memo statement "
                  + (int) statement.perSecond()
                  + "/s, recordConfirmedEffect "
                  + (int) verb.perSecond()
                  + "/s");
        }
        JournalFloor.durableCallStatements(journal, warm);
        Baseline.Result calls = JournalFloor.durableCallStatements(journal, plan.baselineSeconds());
        report.callFloor(calls);
        log(
            "  durable call's two statements p50 "
                + String.format(java.util.Locale.ROOT, "%.2f", calls.latency().p50())
                + " ms");
      }
      pg.drop("bench_floor");
    };
  }

  /** A one-step run whose agent step declares the memo surfaces, as a flow's root does. */
  static RunSpec memoRoot(String name) {
    StepSpec body =
        new StepSpec(
            BODY_STEP,
            List.of(),
            JSON.objectNode(),
            1,
            BackoffPolicy.defaults(),
            OptionalLong.empty(),
            OptionalLong.empty(),
            new StepBody.Agent(
                JSON.objectNode().put("type", "bench.floor"),
                RecoveryMode.INSPECT,
                List.of("/memo/*")));
    return new RunSpec(RunSpec.VERSION, name, List.of(body));
  }

  /** Admits {@code count} memo roots and claims them all for one worker. */
  private static List<LeaseToken> claimedRoots(PostgresJournal journal, int count) {
    String batch = UUID.randomUUID().toString();
    for (int i = 0; i < count; i++) {
      journal.admit(StartRun.of("floor-" + batch + "-" + i, memoRoot("floor")), Admit.queued());
    }
    WorkerId worker = new WorkerId("floor-" + batch);
    List<LeaseToken> leases = new ArrayList<>();
    while (leases.size() < count) {
      List<ClaimedAttempt> got =
          journal.claim(
              new ClaimRequest(worker, Set.of(StepKind.AGENT), count - leases.size(), LEASE));
      if (got.isEmpty()) {
        throw new IllegalStateException(
            "claimed " + leases.size() + " of the " + count + " runs just admitted");
      }
      got.forEach(a -> leases.add(a.lease()));
    }
    return leases;
  }

  /** The memo statement alone, c connections, one memo per statement. */
  static Baseline.Result memoStatements(
      String url, PostgresJournal journal, int concurrency, double seconds) throws Exception {
    PositionalSql st = PositionalSql.of(Sql.text(MEMO_SQL));
    List<LeaseToken> leases = claimedRoots(journal, concurrency);
    return Baseline.loop(
        concurrency,
        seconds,
        (worker, end, record) -> {
          LeaseToken lease = leases.get(worker);
          String key = Keys.idempotencyKey(lease.runId(), lease.stepId());
          try (Connection c = DriverManager.getConnection(url);
              PreparedStatement ps = c.prepareStatement(st.sql())) {
            long t;
            for (int n = 0; (t = System.nanoTime()) < end; n++) {
              String surface = "/memo/" + n;
              for (String name : st.names()) {
                st.bind(ps, name, memoParameter(name, lease, surface, key));
              }
              try (ResultSet r = ps.executeQuery()) {
                // The bound is only a bound if every memo took the path the engine's does.
                if (!r.next() || r.getInt(1) != 1 || r.next()) {
                  throw new IllegalStateException(surface + " did not take the memo's fast path");
                }
              }
              record.accept(System.nanoTime() - t);
            }
          }
        });
  }

  /**
   * One array parameter of a one-memo batch, with the payloads the journal would write; a Java
   * array, bound as the journal binds it.
   */
  private static Object memoParameter(String name, LeaseToken lease, String surface, String key) {
    String head = "{\"surfacePath\":\"" + surface + "\",\"idempotencyKey\":\"" + key + "\"";
    String tail = ",\"stepId\":\"" + lease.stepId() + "\",\"attempt\":" + lease.attempt() + "}";
    return switch (name) {
      case "runIds" -> new String[] {lease.runId().value()};
      case "stepIds" -> new String[] {lease.stepId()};
      case "attempts" -> new int[] {lease.attempt()};
      case "leaseIds" -> new String[] {lease.leaseId()};
      case "surfacePaths" -> new String[] {surface};
      case "idempotencyKeys" -> new String[] {key};
      case "outputs" -> new String[] {MEMO_OUTPUT};
      case "recordedPayloads" -> new String[] {head + ",\"takenOver\":false" + tail};
      case "confirmedPayloads" -> new String[] {head + ",\"output\":" + MEMO_OUTPUT + tail};
      // No test clock: the database clock, as the journal in production.
      case "now" -> null;
      default -> throw new IllegalStateException(MEMO_SQL + " takes an unknown parameter " + name);
    };
  }

  /** {@code recordConfirmedEffect} from c threads, each on its own claimed run. */
  static Baseline.Result memoVerbs(PostgresJournal journal, int concurrency, double seconds)
      throws Exception {
    List<LeaseToken> leases = claimedRoots(journal, concurrency);
    ObjectNode memo = JSON.objectNode().put("name", "s").put("value", 12);
    return Baseline.loop(
        concurrency,
        seconds,
        (worker, end, record) -> {
          LeaseToken lease = leases.get(worker);
          long t;
          for (int n = 0; (t = System.nanoTime()) < end; n++) {
            EffectElection e =
                journal.recordConfirmedEffect(lease, "/memo/" + n, Optional.of(memo));
            if (e.deduped()) {
              throw new IllegalStateException("memo " + n + " was answered deduped");
            }
            record.accept(System.nanoTime() - t);
          }
        });
  }

  /**
   * A durable call's two statements, one call after another: the admission of a one-step MCP child
   * claimed and elected at once, then its confirmation and completion with a receipt.
   */
  static Baseline.Result durableCallStatements(PostgresJournal journal, double seconds)
      throws Exception {
    RunRef parent = claimedRoots(journal, 1).getFirst().runId();
    WorkerId worker = new WorkerId("floor-calls");
    String surface = Lowering.mcpSurface("noop", "echo");
    ObjectNode connection = JSON.objectNode().put("transport", "stdio");
    connection.putArray("command").add("noop-server");
    return Baseline.loop(
        1,
        seconds,
        (unused, end, record) -> {
          long t;
          for (int n = 0; (t = System.nanoTime()) < end; n++) {
            ObjectNode args = JSON.objectNode().put("text", "call " + n);
            RunSpec spec =
                Lowering.mcpCall(
                    "floor", "noop", "echo", args, connection, false, SdkConfig.DEFAULTS);
            RunRef child = Keys.childRunId(parent, "call/" + n);
            StartRun admit =
                new StartRun(
                    Optional.of(child), child.value(), spec, Optional.of(parent), "flow:floor");
            ClaimedEffect claimed =
                journal.admit(admit, Admit.claimedHere(worker, LEASE).electing(surface));
            JsonNode receipt = receipt(args, claimed.election().idempotencyKey());
            journal.confirmAndComplete(
                claimed.attempt().lease(),
                surface,
                Optional.of(receipt),
                new StepOutcome.Succeeded(receipt));
            record.accept(System.nanoTime() - t);
          }
        });
  }

  /** What the no-op attempts of the journal alone measured: steps/s and each verb's latency. */
  record NoopAttempts(double perSecond, Stats claim, Stats renew, Stats complete) {}

  /**
   * A backlog of one-step deterministic runs drained by c threads through the journal alone, each
   * attempt as a worker makes it with a no-op executor: claim one, renew its lease once (the
   * renewal before work), complete it with success.
   */
  static NoopAttempts noopAttempts(PostgresJournal journal, List<RunRef> backlog, int concurrency)
      throws Exception {
    ConcurrentLinkedQueue<Long> claims = new ConcurrentLinkedQueue<>();
    ConcurrentLinkedQueue<Long> renewals = new ConcurrentLinkedQueue<>();
    ConcurrentLinkedQueue<Long> completions = new ConcurrentLinkedQueue<>();
    Baseline.Result drained =
        Baseline.loop(
            concurrency,
            DRAIN_LIMIT.toSeconds(),
            (worker, end, record) -> {
              ClaimRequest one =
                  new ClaimRequest(
                      new WorkerId("floor-noop-" + worker),
                      Set.of(StepKind.DETERMINISTIC),
                      1,
                      LEASE);
              while (System.nanoTime() < end) {
                long a = System.nanoTime();
                List<ClaimedAttempt> got = journal.claim(one);
                long b = System.nanoTime();
                if (got.isEmpty()) {
                  return;
                }
                LeaseToken lease = got.getFirst().lease();
                journal.renewLeases(List.of(lease));
                long c = System.nanoTime();
                journal.complete(lease, new StepOutcome.Succeeded(JSON.nullNode()));
                long d = System.nanoTime();
                claims.add(b - a);
                renewals.add(c - b);
                completions.add(d - c);
                record.accept(d - a);
              }
            });
    int done = drained.latency().sortedNanos().size();
    if (done != backlog.size()) {
      throw new IllegalStateException(
          "completed " + done + " attempts of a backlog of " + backlog.size());
    }
    return new NoopAttempts(
        drained.perSecond(), Stats.of(claims), Stats.of(renewals), Stats.of(completions));
  }

  private static JsonNode receipt(ObjectNode args, String idempotencyKey) {
    ObjectNode output = JSON.objectNode();
    output.putArray("content").addObject().put("type", "text").put("text", "ok");
    return McpReceipt.of("noop", "echo", args, output, idempotencyKey);
  }
}
