package dev.flows.kernel.journal.differential;

import static dev.flows.kernel.journal.Specs.FAST_RETRY;
import static dev.flows.kernel.journal.Specs.agent;
import static dev.flows.kernel.journal.Specs.command;
import static dev.flows.kernel.journal.Specs.dependsOn;
import static dev.flows.kernel.journal.Specs.iterations;
import static dev.flows.kernel.journal.Specs.lease;
import static dev.flows.kernel.journal.Specs.llm;
import static dev.flows.kernel.journal.Specs.mcpCall;
import static dev.flows.kernel.journal.Specs.retry;
import static dev.flows.kernel.journal.Specs.run;
import static dev.flows.kernel.journal.Specs.timeout;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.instruction.FlowBodyInstruction;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.ClaimRequest;
import dev.flows.kernel.journal.ClaimedAttempt;
import dev.flows.kernel.journal.ClaimedEffect;
import dev.flows.kernel.journal.ClaimedStart;
import dev.flows.kernel.journal.CompletionAck;
import dev.flows.kernel.journal.CompletionReason;
import dev.flows.kernel.journal.Disposition;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.LeaseToken;
import dev.flows.kernel.journal.PayloadLimits;
import dev.flows.kernel.journal.PruneReport;
import dev.flows.kernel.journal.PruneRequest;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunUpgrade;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.journal.StepOutcome;
import dev.flows.kernel.journal.WorkerId;
import dev.flows.kernel.schedule.Calendar;
import dev.flows.kernel.schedule.Overlap;
import dev.flows.kernel.schedule.ScheduleChange;
import dev.flows.kernel.schedule.ScheduleDefinition;
import dev.flows.kernel.schedule.ScheduleEntry;
import dev.flows.kernel.schedule.TickBatch;
import dev.flows.kernel.spec.BackoffPolicy;
import dev.flows.kernel.spec.RecoveryMode;
import dev.flows.kernel.spec.RunSpec;
import dev.flows.kernel.spec.StepBody;
import dev.flows.kernel.spec.StepKind;
import dev.flows.kernel.spec.StepSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Every journal verb a differential script may call, in one list ({@link #ALL}). A new verb (or a
 * new variant of one) is one more entry: a name, a weight, and how it makes a {@link Call} from
 * what the script knows.
 */
final class Verbs {
  private Verbs() {}

  /** One call of a script: applied to both journals alike. */
  record Call(
      String description,
      Runnable before,
      Function<Journal, Object> apply,
      Consumer<Object> learn) {
    static Call of(String description, Function<Journal, Object> apply) {
      return new Call(description, () -> {}, apply, answer -> {});
    }

    Call learning(Consumer<Object> learn) {
      return new Call(description, before, apply, learn);
    }
  }

  /** A verb: empty when the script has nothing to call it on yet. */
  record Verb(String name, int weight, Function<Script, Optional<Call>> make) {}

  static final String INLINE_SURFACE = "/mcp/s/t";
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  private static final WorkerId WORKER = new WorkerId("worker-differential");

  static final List<Verb> ALL =
      List.of(
          new Verb("start", 8, s -> Optional.of(start(s))),
          new Verb("start again", 2, Verbs::startAgain),
          new Verb("start child", 3, Verbs::startChild),
          new Verb("start claimed", 2, s -> Optional.of(startClaimed(s))),
          new Verb("start run claimed", 3, s -> Optional.of(startRunClaimed(s))),
          new Verb("start run succeeded", 3, s -> Optional.of(startRunSucceeded(s))),
          new Verb("claim", 10, s -> Optional.of(claim(s))),
          new Verb("heartbeat", 3, s -> fenced(s, "heartbeat", (j, a) -> j.heartbeat(a.lease()))),
          new Verb("renew leases", 2, Verbs::renewLeases),
          new Verb("record effect", 5, Verbs::recordEffect),
          new Verb("confirm effect", 4, Verbs::confirmEffect),
          new Verb("record confirmed effect", 6, Verbs::recordConfirmedEffect),
          new Verb("record confirmed effects", 4, Verbs::recordConfirmedEffects),
          new Verb("complete", 12, Verbs::complete),
          new Verb("confirm and complete", 3, Verbs::confirmAndComplete),
          new Verb("cancel", 2, Verbs::cancel),
          new Verb("expire leases", 4, s -> Optional.of(Call.of("expire", Journal::expireLeases))),
          new Verb("resolve", 3, Verbs::resolve),
          new Verb("answer input", 3, Verbs::answer),
          new Verb("resume", 2, Verbs::resume),
          new Verb("upgrade", 2, Verbs::upgrade),
          new Verb("prune", 2, s -> Optional.of(prune(s))),
          new Verb("advance time", 8, s -> Optional.of(advance(s))),
          new Verb(
              "until next lease deadline",
              1,
              s -> Optional.of(Call.of("untilNextLeaseDeadline", Journal::untilNextLeaseDeadline))),
          new Verb("until next claimable", 1, s -> Optional.of(untilNextClaimable(s))),
          new Verb("read run", 1, Verbs::readRun),
          new Verb("send signal", 3, Verbs::sendSignal),
          new Verb("take signal", 3, Verbs::takeSignal),
          new Verb("record task", 4, Verbs::recordTask),
          new Verb("start task call", 3, s -> Optional.of(startTaskCall(s))),
          new Verb("note task cancel", 2, Verbs::noteTaskCancel),
          new Verb(
              "tasks to cancel",
              1,
              s -> Optional.of(Call.of("tasksToCancel", j -> j.tasksToCancel(s.between(1, 4))))),
          new Verb("oversized payload", 1, Verbs::oversized));

  /**
   * The schedule verbs, with the run verbs that end or wait out a tick's run: scripts of their own,
   * so that the scripts of {@link #ALL} stay what their seeds name.
   */
  static final List<Verb> SCHEDULES =
      List.of(
          new Verb("change schedule", 4, s -> Optional.of(changeSchedule(s))),
          new Verb("take ticks", 6, s -> Optional.of(takeTicks(s))),
          new Verb("take due ticks", 4, s -> Optional.of(takeDueTicks(s))),
          new Verb(
              "due schedules",
              1,
              s -> Optional.of(Call.of("dueSchedules", j -> j.dueSchedules(Set.of("flow"), 5)))),
          new Verb("read schedules", 1, s -> Optional.of(readSchedules(s))),
          new Verb("advance time", 6, s -> Optional.of(advance(s))),
          new Verb("claim", 3, s -> Optional.of(claim(s))),
          new Verb("complete", 3, Verbs::complete),
          new Verb("cancel", 2, Verbs::cancel));

  // ---- schedules

  private static final List<String> SCHEDULE_NAMES = List.of("s1", "s2");

  private static Call changeSchedule(Script s) {
    String name = s.pick(SCHEDULE_NAMES);
    ScheduleDefinition d =
        ScheduleDefinition.of(
                name,
                "flow",
                s.chance(0.5)
                    ? Calendar.every(Duration.ofSeconds(s.between(1, 3)), Duration.ZERO)
                    : Calendar.cron("*/2 * * * * *"))
            .withOverlap(s.pick(List.of(Overlap.values())))
            .withCatchUpWindow(Duration.ofSeconds(s.between(0, 5)))
            .withPauseOnFailure(s.chance(0.3));
    ScheduleChange c =
        switch (s.between(0, 7)) {
          case 0, 1 -> new ScheduleChange.Create(d, "ops");
          case 2 -> new ScheduleChange.Update(d, "ops");
          case 3 -> new ScheduleChange.Pause(name, "why", "ops");
          case 4 -> new ScheduleChange.Resume(name, "ops");
          case 5 -> new ScheduleChange.Delete(name, "ops");
          case 6 -> new ScheduleChange.Trigger(name, "ops");
          default ->
              new ScheduleChange.Backfill(
                  name,
                  Differential.START.minusSeconds(10),
                  Differential.START.minusSeconds(s.between(2, 8)),
                  "ops");
        };
    return Call.of("change schedule " + c, j -> j.changeSchedule(c));
  }

  private static Call takeTicks(Script s) {
    String name = s.pick(SCHEDULE_NAMES);
    StartRun template = StartRun.of("template", run(agent("a")));
    return Call.of("take ticks " + name, j -> j.takeTicks(name, template, "worker"))
        .learning(
            answer ->
                ((List<?>) answer)
                    .forEach(
                        e -> {
                          if (e instanceof ScheduleEntry.TickStarted t) {
                            s.runs.add(t.runId());
                          }
                        }));
  }

  /** A batch take, now and then leaving one schedule to another taker (no template for it). */
  private static Call takeDueTicks(Script s) {
    StartRun template = StartRun.of("template", run(agent("a")));
    int limit = s.between(1, 3);
    Optional<String> leftOut =
        s.chance(0.3) ? Optional.of(s.pick(SCHEDULE_NAMES)) : Optional.empty();
    return Call.of(
            "take due ticks " + limit + " leaving " + leftOut,
            j ->
                j.takeDueTicks(
                    Set.of("flow"),
                    limit,
                    d ->
                        leftOut.filter(d.name()::equals).isPresent()
                            ? Optional.empty()
                            : Optional.of(template),
                    "worker"))
        .learning(
            answer ->
                ((TickBatch) answer)
                    .taken()
                    .forEach(
                        t ->
                            t.entries()
                                .forEach(
                                    e -> {
                                      if (e instanceof ScheduleEntry.TickStarted started) {
                                        s.runs.add(started.runId());
                                      }
                                    })));
  }

  /** The schedules and their journals (sequence numbers count other scripts' entries too). */
  private static Call readSchedules(Script s) {
    String name = s.pick(SCHEDULE_NAMES);
    return Call.of(
        "read schedules",
        j ->
            List.of(
                j.schedules(),
                j.scheduleEntries(name).stream()
                    .map(r -> List.of(r.at(), r.schedule(), r.by(), r.entry()))
                    .toList()));
  }

  // ---- admission

  private static RunSpec spec(Script s) {
    BackoffPolicy backoff =
        new BackoffPolicy(
            s.oneOf(1L, 100L, 400L), s.oneOf(1_000L, 5_000L), s.oneOf(1.0, 2.0), s.oneOf(0, 20));
    return switch (s.between(0, 4)) {
      case 0 -> run(step(s, agent("a", "/memo/*", INLINE_SURFACE), backoff));
      case 3 -> run(step(s, flowBody("1"), backoff));
      case 1 ->
          run(
              step(s, agent("a", "/memo/*"), backoff),
              dependsOn(step(s, mcpCall("b", "s", "t", JSON.nullNode()), backoff), "a"));
      case 2 ->
          run(
              step(s, command("c", "true"), backoff),
              step(s, llm("l"), backoff),
              dependsOn(step(s, agent("g", "/memo/*"), backoff), "c", "l"));
      default -> run(step(s, agent("a", "/memo/*"), backoff), step(s, agent("b"), backoff));
    };
  }

  private static StepSpec step(Script s, StepSpec base, BackoffPolicy backoff) {
    StepSpec st = retry(iterations(base, s.between(1, 3)), backoff);
    // A call's own timeout bounds how long an expiry waiting on its task is given back.
    st = s.chance(0.3) ? timeout(st, Duration.ofMillis(s.oneOf(2_000L, 20_000L))) : st;
    return s.chance(0.4) ? lease(st, Duration.ofMillis(s.oneOf(300L, 1_000L, 2_000L))) : st;
  }

  private static Call start(Script s) {
    StartRun r =
        new StartRun(
            Optional.of(new RunRef(s.fresh("r"))),
            s.fresh("key"),
            spec(s),
            Optional.empty(),
            "differential");
    return Call.of("start " + r.runId().orElseThrow(), j -> j.admit(r, Admit.queued()))
        .learning(answer -> s.admit(r));
  }

  /** An admission the script made before, again (see {@link #again}). */
  private static Optional<Call> startAgain(Script s) {
    return again(s, () -> spec(s))
        .map(r -> Call.of("start again " + describe(r), j -> j.admit(r, Admit.queued())));
  }

  /**
   * A request meeting a run the script named before, as any admission verb may: the same admission
   * again, its key with another spec ({@code spec}: one the verb accepts) or under another run id,
   * or its run id under another key (a tombstoned id has only that); the run met may be going on or
   * ended. Empty when the script has named no run yet.
   */
  private static Optional<StartRun> again(Script s, Supplier<RunSpec> spec) {
    if (s.runs.isEmpty()) {
      return Optional.empty();
    }
    RunRef id = s.pick(List.copyOf(s.runs));
    StartRun before = s.admitted.get(id);
    if (before == null) {
      return Optional.of(fresh(s, id, spec.get()));
    }
    return Optional.of(
        switch (s.between(0, 3)) {
          case 0 -> before;
          case 1 ->
              new StartRun(
                  Optional.of(id), before.admissionKey(), spec.get(), Optional.empty(), "again");
          case 2 ->
              new StartRun(
                  Optional.of(new RunRef(s.fresh("r"))),
                  before.admissionKey(),
                  before.spec(),
                  Optional.empty(),
                  "again");
          default -> fresh(s, id, before.spec());
        });
  }

  private static StartRun fresh(Script s, RunRef id, RunSpec spec) {
    return new StartRun(Optional.of(id), s.fresh("key"), spec, Optional.empty(), "again");
  }

  private static String describe(StartRun r) {
    return r.runId().orElseThrow() + " key " + r.admissionKey();
  }

  private static Optional<Call> startChild(Script s) {
    return s.admittedRun()
        .map(
            parent -> {
              StartRun r =
                  new StartRun(
                      Optional.of(new RunRef(s.fresh("c"))),
                      s.fresh("key"),
                      run(step(s, agent("a", "/memo/*"), FAST_RETRY)),
                      Optional.of(parent),
                      "flow:" + parent);
              return Call.of(
                      "start child " + r.runId().orElseThrow() + " of " + parent,
                      j -> j.admit(r, Admit.queued()))
                  .learning(answer -> s.admit(r));
            });
  }

  /** An inline call's one step: an MCP call's agent step (its surface {@link #INLINE_SURFACE}). */
  private static RunSpec inlineCall(Script s) {
    return run(step(s, mcpCall("call", "s", "t", JSON.nullNode()), FAST_RETRY));
  }

  private static Call startClaimed(Script s) {
    StartRun r =
        s.chance(0.9)
            ? new StartRun(
                Optional.of(new RunRef(s.fresh("i"))),
                s.fresh("key"),
                inlineCall(s),
                Optional.empty(),
                "inline")
            : again(s, () -> inlineCall(s))
                .orElseGet(() -> fresh(s, new RunRef(s.fresh("i")), inlineCall(s)));
    String surface = s.chance(0.95) ? INLINE_SURFACE : "/mcp/x/y";
    Duration lease = s.oneOf(Duration.ofSeconds(1), Duration.ofSeconds(5));
    return Call.of(
            "start claimed " + describe(r) + " " + surface,
            j -> j.admit(r, Admit.claimedHere(WORKER, lease).electing(surface)))
        .learning(
            answer -> {
              s.admit(r);
              ClaimedAttempt a = ((ClaimedEffect) answer).attempt();
              s.held.add(new Script.Held(a.lease(), a.step()));
            });
  }

  /** A run admitted with its attempt open at once: one step whose body takes memos. */
  private static RunSpec body(Script s) {
    return run(step(s, agent("body", "/memo/*"), FAST_RETRY));
  }

  /**
   * A root run admitted already claimed: mostly a fresh one-step run, else one meeting a run named
   * before (see {@link #again}) or a spec of two steps (refused).
   */
  private static Call startRunClaimed(Script s) {
    Optional<StartRun> again = s.chance(0.2) ? again(s, () -> body(s)) : Optional.empty();
    StartRun r;
    if (again.isPresent()) {
      r = again.get();
    } else {
      RunSpec spec =
          s.chance(0.9)
              ? body(s)
              : run(step(s, agent("a"), FAST_RETRY), step(s, agent("b"), FAST_RETRY));
      r =
          new StartRun(
              Optional.of(new RunRef(s.fresh("b"))),
              s.fresh("key"),
              spec,
              Optional.empty(),
              "body");
    }
    Duration lease = s.oneOf(Duration.ofSeconds(1), Duration.ofSeconds(5));
    StartRun request = r;
    return Call.of(
            "start run claimed " + describe(r),
            j -> j.admit(request, Admit.claimedHere(WORKER, lease)))
        .learning(
            answer -> {
              ClaimedStart c = (ClaimedStart) answer;
              if (c.started().created()) {
                s.admit(request);
              }
              c.attempt().ifPresent(a -> s.held.add(new Script.Held(a.lease(), a.step())));
            });
  }

  /**
   * A root run admitted with its attempt's success: mostly a fresh one-step run with up to three
   * memos (now and then undeclared or repeated), else one meeting a run named before (see {@link
   * #again}).
   */
  private static Call startRunSucceeded(Script s) {
    Optional<StartRun> again = s.chance(0.2) ? again(s, () -> body(s)) : Optional.empty();
    StartRun request =
        again.orElseGet(
            () ->
                new StartRun(
                    Optional.of(new RunRef(s.fresh("e"))),
                    s.fresh("key"),
                    body(s),
                    Optional.empty(),
                    "body"));
    List<dev.flows.kernel.journal.MemoEffect> memos = new java.util.ArrayList<>();
    for (int i = s.between(0, 3); i > 0; i--) {
      String surface = s.chance(0.9) ? "/memo/" + s.between(0, 4) : "/undeclared";
      Optional<JsonNode> out = s.chance(0.9) ? Optional.of(output(s)) : Optional.empty();
      memos.add(new dev.flows.kernel.journal.MemoEffect(surface, out));
    }
    StepOutcome.Succeeded ok = new StepOutcome.Succeeded(output(s), memos);
    Duration lease = s.oneOf(Duration.ofSeconds(1), Duration.ofSeconds(5));
    return Call.of(
            "start run succeeded " + describe(request) + " " + memos,
            j -> j.admit(request, Admit.withItsEnd(WORKER, lease, ok)))
        .learning(
            answer -> {
              if (((Optional<?>) answer).isPresent()) {
                s.admit(request);
              }
            });
  }

  // ---- claims and leases

  private static ClaimRequest request(Script s, int capacity) {
    Set<StepKind> kinds =
        s.chance(0.8)
            ? EnumSet.allOf(StepKind.class)
            : EnumSet.of(s.oneOf(StepKind.values()), s.oneOf(StepKind.values()));
    Optional<Set<String>> routes =
        s.chance(0.85) ? Optional.empty() : Optional.of(Set.of(s.oneOf("test", "llm", "flow")));
    return new ClaimRequest(
        WORKER,
        kinds,
        capacity,
        s.oneOf(Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofSeconds(5)),
        routes);
  }

  @SuppressWarnings("unchecked")
  private static Call claim(Script s) {
    ClaimRequest request = request(s, s.between(0, 3));
    return Call.of("claim " + Normal.of(request), j -> j.claim(request))
        .learning(
            answer ->
                ((List<ClaimedAttempt>) answer)
                    .forEach(a -> s.held.add(new Script.Held(a.lease(), a.step()))));
  }

  private static Call untilNextClaimable(Script s) {
    ClaimRequest request = request(s, 1);
    return Call.of("untilNextClaimable " + Normal.of(request), j -> j.untilNextClaimable(request));
  }

  /** A verb on one held attempt (sometimes with a forged lease id, which must be refused). */
  private static Optional<Call> fenced(
      Script s, String verb, java.util.function.BiFunction<Journal, Script.Held, Object> apply) {
    return s.attempt()
        .map(
            h -> {
              Script.Held target = s.chance(0.05) ? forged(h) : h;
              return Call.of(verb + " " + target.lease(), j -> apply.apply(j, target));
            });
  }

  private static Script.Held forged(Script.Held h) {
    LeaseToken t = h.lease();
    return new Script.Held(
        new LeaseToken(t.runId(), t.stepId(), t.attempt(), "lease_forged"), h.step());
  }

  private static Optional<Call> renewLeases(Script s) {
    if (s.held.isEmpty()) {
      return Optional.empty();
    }
    List<LeaseToken> leases = new ArrayList<>();
    for (int i = s.between(0, 4); i > 0; i--) {
      leases.add(s.attempt().orElseThrow().lease());
    }
    if (s.chance(0.2)) {
      leases.add(new LeaseToken(new RunRef(s.fresh("unknown")), "a", 1, "lease_x"));
    }
    return Optional.of(Call.of("renewLeases " + leases, j -> j.renewLeases(leases)));
  }

  // ---- effects

  private static JsonNode output(Script s) {
    return s.chance(0.2) ? JSON.nullNode() : JSON.objectNode().put("v", s.between(0, 99));
  }

  /** An effect verb on one held attempt, one of its surfaces and maybe an output. */
  @FunctionalInterface
  private interface EffectVerb {
    Object apply(Journal journal, LeaseToken lease, String surface, Optional<JsonNode> output);
  }

  private static Optional<Call> effect(Script s, String verb, double withOutput, EffectVerb v) {
    return s.attempt()
        .map(
            h -> {
              String surface = s.surface(h);
              Optional<JsonNode> out =
                  s.chance(withOutput) ? Optional.of(output(s)) : Optional.empty();
              return Call.of(
                  verb + " " + h.lease() + " " + surface + " " + Normal.of(out),
                  j -> v.apply(j, h.lease(), surface, out));
            });
  }

  private static Optional<Call> recordEffect(Script s) {
    return effect(s, "recordEffect", 0, (j, lease, surface, out) -> j.recordEffect(lease, surface));
  }

  private static Optional<Call> confirmEffect(Script s) {
    return effect(
        s,
        "confirmEffect",
        0.7,
        (j, lease, surface, out) -> {
          j.confirmEffect(lease, surface, out);
          return "confirmed";
        });
  }

  private static Optional<Call> recordConfirmedEffect(Script s) {
    return effect(s, "recordConfirmedEffect", 0.9, Journal::recordConfirmedEffect);
  }

  // ---- task-backed calls

  /** A task note on a held attempt's surface: mostly the one task id, a status, a message. */
  private static Optional<Call> recordTask(Script s) {
    dev.flows.kernel.journal.TaskNote note =
        new dev.flows.kernel.journal.TaskNote(
            s.chance(0.9) ? "task-1" : "task-2",
            s.oneOf("working", "working", "input_required", "completed", "cancelled", "x"),
            s.chance(0.8) ? Optional.of(s.oneOf("0%", "50%")) : Optional.empty(),
            s.chance(0.5) ? Optional.of(s.oneOf(50L, 1_000L)) : Optional.empty(),
            s.chance(0.5) ? Optional.of(s.oneOf(3_000L, 30_000L)) : Optional.empty(),
            "2026-07-28");
    return effect(
        s, "recordTask " + note, 0, (j, lease, surface, out) -> j.recordTask(lease, surface, note));
  }

  /**
   * A call run started claimed whose server answered with a task still running: its attempt holds
   * the task, so the attempt's expiry meets the rule for expiries while a task is awaited.
   */
  private static Call startTaskCall(Script s) {
    RunRef id = new RunRef(s.fresh("t"));
    StartRun r =
        new StartRun(Optional.of(id), s.fresh("key"), inlineCall(s), Optional.empty(), "task");
    Duration lease = s.oneOf(Duration.ofMillis(400), Duration.ofSeconds(1));
    dev.flows.kernel.journal.TaskNote note =
        new dev.flows.kernel.journal.TaskNote(
            "task-1",
            s.oneOf("working", "input_required"),
            Optional.empty(),
            Optional.empty(),
            s.chance(0.7) ? Optional.of(s.oneOf(3_000L, 30_000L)) : Optional.empty(),
            "2026-07-28");
    return Call.of(
            "start task call " + id + " " + note,
            j -> {
              ClaimedEffect c =
                  j.admit(r, Admit.claimedHere(WORKER, lease).electing(INLINE_SURFACE));
              return List.of(c, j.recordTask(c.attempt().lease(), INLINE_SURFACE, note));
            })
        .learning(
            answer -> {
              s.admit(r);
              ClaimedAttempt a = ((ClaimedEffect) ((List<?>) answer).getFirst()).attempt();
              s.held.add(new Script.Held(a.lease(), a.step()));
            });
  }

  /** A cancel note for a run the script admitted, on one of its steps, mostly task-1. */
  private static Optional<Call> noteTaskCancel(Script s) {
    if (s.runs.isEmpty()) {
      return Optional.empty();
    }
    RunRef id = s.pick(List.copyOf(s.runs));
    String step = s.oneOf("a", "b", "x");
    String task = s.chance(0.9) ? "task-1" : "task-2";
    return Optional.of(
        Call.of(
            "noteTaskCancel " + id + "/" + step + " " + task,
            j -> j.noteTaskCancel(id, step, task, "run ended", "reconciler")));
  }

  /** One to four memos of one held attempt, its surfaces mostly declared. */
  private static List<dev.flows.kernel.journal.MemoEffect> memos(Script s, Script.Held h) {
    List<dev.flows.kernel.journal.MemoEffect> memos = new java.util.ArrayList<>();
    for (int i = s.between(1, 4); i > 0; i--) {
      Optional<JsonNode> out = s.chance(0.9) ? Optional.of(output(s)) : Optional.empty();
      memos.add(new dev.flows.kernel.journal.MemoEffect(s.surface(h), out));
    }
    return memos;
  }

  /** A batch of one to four memos of one held attempt, its surfaces mostly declared. */
  private static Optional<Call> recordConfirmedEffects(Script s) {
    return s.attempt()
        .map(
            h -> {
              List<dev.flows.kernel.journal.MemoEffect> memos = memos(s, h);
              return Call.of(
                  "recordConfirmedEffects " + h.lease() + " " + Normal.of(memos),
                  j -> j.recordConfirmedEffects(h.lease(), memos));
            });
  }

  // ---- attempt ends

  private static StepOutcome outcome(Script s, Script.Held h) {
    return switch (s.between(0, 6)) {
      case 0 -> new StepOutcome.Succeeded(output(s));
      case 1 -> new StepOutcome.Succeeded(output(s), memos(s, h));
      case 2 ->
          new StepOutcome.Failed(
              s.oneOf(CompletionReason.WORKER_ERROR, CompletionReason.CRASHED),
              JSON.objectNode().put("why", "boom"),
              true);
      case 3 ->
          new StepOutcome.Failed(
              s.oneOf(CompletionReason.TIMEOUT, CompletionReason.VERIFICATION_FAILED),
              JSON.objectNode().put("why", "no"),
              false);
      case 4 ->
          s.chance(0.5)
              ? new StepOutcome.Parked(
                  CompletionReason.WORKER_ERROR,
                  ErrorCode.EFFECT_OUTCOME_UNKNOWN,
                  JSON.objectNode().put("why", "unknown"))
              : new StepOutcome.Parked(
                  CompletionReason.WORKER_ERROR, ErrorCode.INPUT_REQUIRED, inputTail());
      case 5 ->
          s.chance(0.5)
              ? StepOutcome.Suspended.timer(s.oneOf(Duration.ofMillis(500), Duration.ofSeconds(3)))
              : StepOutcome.Suspended.signal(
                  s.oneOf("approve", "other"),
                  s.oneOf(Duration.ofMillis(500), Duration.ofSeconds(3)));
      default -> {
        List<RunRef> children = s.childrenOf(h.lease().runId());
        RunRef awaited =
            children.isEmpty() || s.chance(0.1) ? s.pick(List.copyOf(s.runs)) : s.pick(children);
        yield new StepOutcome.Suspended(
            awaited, s.oneOf(Duration.ofMillis(500), Duration.ofSeconds(3)));
      }
    };
  }

  private static Optional<Call> complete(Script s) {
    return s.attempt()
        .map(
            h -> {
              StepOutcome outcome = outcome(s, h);
              return Call.of(
                      "complete " + h.lease() + " " + Normal.of(outcome),
                      j -> j.complete(h.lease(), outcome))
                  .learning(answer -> learnParked(s, h, answer));
            });
  }

  private static Optional<Call> confirmAndComplete(Script s) {
    return s.attempt()
        .map(
            h -> {
              String surface = s.surface(h);
              Optional<JsonNode> out = s.chance(0.8) ? Optional.of(output(s)) : Optional.empty();
              StepOutcome outcome = outcome(s, h);
              return Call.of(
                      "confirmAndComplete "
                          + h.lease()
                          + " "
                          + surface
                          + " "
                          + Normal.of(out)
                          + " "
                          + Normal.of(outcome),
                      j -> j.confirmAndComplete(h.lease(), surface, out, outcome))
                  .learning(answer -> learnParked(s, h, answer));
            });
  }

  private static void learnParked(Script s, Script.Held h, Object answer) {
    if (((CompletionAck) answer).disposition() == Disposition.PARK) {
      s.parked.add(h);
    }
  }

  // ---- signals

  /** Mostly to an admitted run, sometimes to an unknown one; sometimes with a key used before. */
  private static Optional<Call> sendSignal(Script s) {
    RunRef id =
        s.admitted.isEmpty() || s.chance(0.1)
            ? new RunRef(s.fresh("t"))
            : s.admittedRun().orElseThrow();
    String name = s.chance(0.05) ? "bad name" : s.oneOf("approve", "other");
    Optional<String> key = s.chance(0.5) ? Optional.empty() : Optional.of(s.oneOf("k1", "k2"));
    JsonNode payload = output(s);
    return Optional.of(
        Call.of(
            "sendSignal " + id + " " + name + " " + Normal.of(payload) + " " + key,
            j -> j.sendSignal(id, name, payload, key)));
  }

  /** One byte of JSON past every default payload limit. */
  private static final JsonNode OVERSIZED =
      JSON.objectNode().put("blob", "x".repeat((int) PayloadLimits.DEFAULT_MAX_BYTES));

  /**
   * A run input, signal payload or input answer one past its limit: both journals refuse it {@code
   * payload_too_large} and write nothing.
   */
  private static Optional<Call> oversized(Script s) {
    return switch (s.between(0, 2)) {
      case 0 -> {
        StartRun r =
            new StartRun(
                Optional.of(new RunRef(s.fresh("r"))),
                s.fresh("key"),
                run(dev.flows.kernel.journal.Specs.input(agent("a"), OVERSIZED)),
                Optional.empty(),
                "differential");
        yield Optional.of(
            Call.of("start oversized " + r.runId().orElseThrow(), j -> j.admit(r, Admit.queued())));
      }
      case 1 ->
          s.admittedRun()
              .map(
                  id ->
                      Call.of(
                          "sendSignal oversized " + id,
                          j -> j.sendSignal(id, "approve", OVERSIZED, Optional.empty())));
      default -> {
        if (s.parked.isEmpty()) {
          yield Optional.empty();
        }
        LeaseToken t = s.pick(s.parked).lease();
        yield Optional.of(
            Call.of(
                "answer oversized " + t.runId() + "/" + t.stepId(),
                j ->
                    j.answerInput(
                        t.runId(),
                        t.stepId(),
                        new dev.flows.kernel.journal.InputAnswer.Accept(OVERSIZED),
                        "ops")));
      }
    };
  }

  private static Optional<Call> takeSignal(Script s) {
    String name = s.oneOf("approve", "other");
    return effect(
        s, "takeSignal " + name, 0, (j, lease, surface, out) -> j.takeSignal(lease, name, surface));
  }

  // ---- runs and operators

  private static Optional<Call> cancel(Script s) {
    RunRef id =
        s.admitted.isEmpty() || s.chance(0.15)
            ? new RunRef(s.fresh("t"))
            : s.admittedRun().orElseThrow();
    return Optional.of(
        Call.of("cancel " + id, j -> j.cancelRun(id, "differential"))
            .learning(answer -> s.runs.add(id)));
  }

  /** Resolves a step: mostly one a completion parked, sometimes any (refused unless parked). */
  private static Optional<Call> resolve(Script s) {
    if (!s.parked.isEmpty() && s.chance(0.8)) {
      LeaseToken t = s.pick(s.parked).lease();
      return Optional.of(resolve(s, t.runId(), t.stepId()));
    }
    return s.admittedRun()
        .map(
            id -> {
              List<String> steps =
                  s.admitted.get(id).spec().steps().stream().map(StepSpec::id).toList();
              return resolve(s, id, s.chance(0.95) ? s.pick(steps) : "nope");
            });
  }

  private static Call resolve(Script s, RunRef id, String step) {
    Optional<JsonNode> performed = s.chance(0.5) ? Optional.of(output(s)) : Optional.empty();
    return Call.of(
        "resolve " + id + "/" + step + " " + Normal.of(performed),
        j -> j.resolveStep(id, step, performed, "ops"));
  }

  /** The tail of a call parked for input: one form asking for a name. */
  private static JsonNode inputTail() {
    com.fasterxml.jackson.databind.node.ObjectNode t =
        JSON.objectNode().put("type", "mcp").put("diagnostic", "input_required");
    com.fasterxml.jackson.databind.node.ObjectNode schema = JSON.objectNode().put("type", "object");
    schema.putObject("properties").putObject("name").put("type", "string");
    schema.putArray("required").add("name");
    com.fasterxml.jackson.databind.node.ObjectNode form =
        t.putObject("inputRequests").putObject("who").put("method", "elicitation/create");
    form.putObject("params").put("mode", "form").set("requestedSchema", schema);
    return t.put("requestState", "st");
  }

  /**
   * Answers a step: mostly one a completion parked (for input or not), with a valid answer, one the
   * schema refuses, or a decline.
   */
  private static Optional<Call> answer(Script s) {
    if (s.parked.isEmpty()) {
      return Optional.empty();
    }
    LeaseToken t = s.pick(s.parked).lease();
    dev.flows.kernel.journal.InputAnswer a =
        switch (s.between(0, 3)) {
          case 0 -> new dev.flows.kernel.journal.InputAnswer.Accept(output(s));
          case 1 -> new dev.flows.kernel.journal.InputAnswer.Decline();
          default ->
              new dev.flows.kernel.journal.InputAnswer.Accept(JSON.objectNode().put("name", "Ada"));
        };
    return Optional.of(
        Call.of(
            "answer " + t.runId() + "/" + t.stepId() + " " + a,
            j -> j.answerInput(t.runId(), t.stepId(), a, "ops")));
  }

  private static Optional<Call> resume(Script s) {
    if (s.runs.isEmpty()) {
      return Optional.empty();
    }
    RunRef id = s.pick(List.copyOf(s.runs));
    return Optional.of(Call.of("resume " + id, j -> j.resumeRun(id, "ops")));
  }

  /** A flow run's body at {@code version} of class flow {@code diff}. */
  private static StepSpec flowBody(String version) {
    StepSpec a = agent("body", "/memo/*");
    FlowBodyInstruction body =
        FlowBodyInstruction.of(
            "diff", version, new FlowBodyInstruction.Origin.ClassFlow("Diff"), JSON.objectNode());
    return new StepSpec(
        a.id(),
        a.dependsOn(),
        a.input(),
        a.maxIterations(),
        a.retry(),
        a.leaseMs(),
        a.timeoutMs(),
        new StepBody.Agent(body.toJson(), RecoveryMode.RESET, List.of("/memo/*")));
  }

  /** Moves a run to another version: a flow run's, or refused (another flow, not a flow run). */
  private static Optional<Call> upgrade(Script s) {
    if (s.runs.isEmpty()) {
      return Optional.empty();
    }
    RunRef id = s.pick(List.copyOf(s.runs));
    RunUpgrade u =
        new RunUpgrade(
            s.chance(0.9) ? "diff" : "other",
            s.oneOf("1", "2", "3"),
            new FlowBodyInstruction.Origin.ClassFlow("Diff"),
            s.between(0, 2));
    return Optional.of(Call.of("upgrade " + id + " " + u, j -> j.upgradeRun(id, u, "ops")));
  }

  /** Prunes ended trees: a period from none to longer than most scripts run, batch or not. */
  private static Call prune(Script s) {
    java.time.Duration olderThan =
        s.pick(
            List.of(
                java.time.Duration.ZERO,
                java.time.Duration.ofMillis(300),
                java.time.Duration.ofSeconds(5),
                java.time.Duration.ofHours(1)));
    java.util.OptionalInt limit =
        s.pick(List.of(java.util.OptionalInt.empty(), java.util.OptionalInt.of(1)));
    boolean dry = s.chance(0.3);
    PruneRequest req = new PruneRequest(olderThan, limit, "differential", dry);
    // Audit ids are the database's sequence, shared by every script of a run: compared by presence.
    return Call.of(
        "prune " + req,
        j -> {
          PruneReport r = j.prune(req);
          return List.of(r.pruneId().isPresent(), r.roots(), r.runs(), r.entries(), r.dryRun());
        });
  }

  private static Optional<Call> readRun(Script s) {
    if (s.runs.isEmpty()) {
      return Optional.empty();
    }
    RunRef id = s.pick(List.copyOf(s.runs));
    return Optional.of(Call.of("run " + id, j -> j.run(id)));
  }

  private static Call advance(Script s) {
    Duration d =
        s.oneOf(
            Duration.ofMillis(1),
            Duration.ofMillis(100),
            Duration.ofMillis(400),
            Duration.ofSeconds(1),
            Duration.ofSeconds(3),
            Duration.ofSeconds(10));
    return new Call("advance " + d, () -> s.clock.advance(d), j -> "advanced", answer -> {});
  }
}
