package dev.flows.ops;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.NotFoundException;
import dev.flows.kernel.journal.CancelOutcome;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.RunId;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.lifecycle.StepStatus;
import dev.flows.sdk.runtime.LoadedFlow;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code flows runs list | show | watch | cancel | resume | resolve | rerun}. */
@Command(
    name = "runs",
    description = "Inspect and control runs.",
    mixinStandardHelpOptions = true,
    subcommands = {
      RunsCommand.ListRuns.class,
      RunsCommand.Show.class,
      RunsCommand.Watch.class,
      RunsCommand.Cancel.class,
      RunsCommand.Resume.class,
      RunsCommand.Resolve.class,
      RunsCommand.Rerun.class
    })
final class RunsCommand implements Callable<Integer> {
  @Override
  public Integer call() {
    throw new FlowsException(
        ErrorCode.INVALID_INPUT,
        "a subcommand is required",
        "flows runs",
        "use `flows runs list`, `show`, `watch`, `cancel`, `resume`, `resolve` or `rerun`");
  }

  static RunId runId(String value) {
    return new RunId(value);
  }

  /** The run, or {@code run_not_found} (nothing is written for an unknown id). */
  static RunSnapshot existing(Journal journal, RunId id) {
    return journal
        .run(id)
        .orElseThrow(
            () ->
                new NotFoundException(
                    ErrorCode.RUN_NOT_FOUND, "no run with id " + id.value(), id.value()));
  }

  /** Who did it, as journaled in {@code run.resumed} / {@code step.resolved}. */
  static String operator() {
    return "flows-cli:" + System.getProperty("user.name", "unknown");
  }

  /**
   * The last line of {@code run} and {@code watch}: the run's status, then its output, why it
   * failed (the failed step's diagnostic, message and fix) or how to resolve it. In JSON: {@code
   * {"type", "run", "output"?, "failure"?}}.
   */
  static void emitEnd(Session s, Journal journal, RunSnapshot now, String type) {
    ObjectNode end = s.object();
    end.put("type", type);
    end.set("run", RunView.summary(now));
    now.steps().stream()
        .filter(st -> st.output().isPresent())
        .reduce((a, b) -> b)
        .flatMap(st -> st.output())
        .ifPresent(o -> end.set("output", o));
    Optional<ObjectNode> failure = RunView.failure(journal, now);
    failure.ifPresent(f -> end.set("failure", f));
    String id = now.runId().value();
    s.event(
        end,
        "run "
            + id
            + " "
            + now.status().wire()
            + now.completionReason().map(r -> " (" + r.wire() + ")").orElse("")
            + (end.has("output") ? "; output " + RunView.clip(end.get("output").toString()) : "")
            + failure.map(f -> "; " + RunView.failureText(f)).orElse("")
            + (now.status() == RunStatus.PARKED ? "; " + parkedHint(journal, now) : ""));
  }

  /** What an operator does about a parked run: the resolve command of its parked step. */
  static String parkedHint(Journal journal, RunSnapshot run) {
    return run.steps().stream()
        .filter(st -> st.status() == StepStatus.PARKED)
        .findFirst()
        .map(
            st ->
                "an operator resolves it: `"
                    + RunView.resolveTarget(journal, run, st.stepId(), 0).command()
                    + "` (see `flows runs show "
                    + run.runId().value()
                    + "`)")
        .orElse("an operator decides: `flows runs show " + run.runId().value() + "`");
  }

  /** The exit code a run's status stands for. */
  static int exitFor(RunStatus status) {
    return switch (status) {
      case SUCCEEDED -> Exit.SUCCESS;
      case FAILED, CANCELED -> Exit.FAILED;
      case PARKED -> Exit.PARKED;
      case RUNNING -> Exit.SUCCESS;
    };
  }

  /** A command about one existing run: parses its id and finds it before doing anything. */
  abstract static class OnRun implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "RUN", description = "The run id.")
    String run;

    final Session s;

    OnRun(Session s) {
      this.s = s;
    }

    @Override
    public final Integer call() throws InterruptedException {
      RunId id = runId(run);
      Journal journal = s.journal();
      return call(id, journal, existing(journal, id));
    }

    abstract int call(RunId id, Journal journal, RunSnapshot before) throws InterruptedException;
  }

  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description = "Runs, newest first (root runs only unless --all), from flows.runs_overview.")
  static final class ListRuns implements Callable<Integer> {
    private static final Pattern AGO = Pattern.compile("(\\d+)([smhd])");

    @Option(
        names = "--status",
        paramLabel = "STATUS",
        description = "running, parked, succeeded, failed or canceled")
    String status;

    @Option(
        names = "--flow",
        paramLabel = "NAME",
        description = "Only runs of this flow (the run name).")
    String flow;

    @Option(names = "--queue", paramLabel = "QUEUE", description = "Only runs of this queue.")
    String queue;

    @Option(
        names = "--since",
        paramLabel = "WHEN",
        description =
            "Only runs created since: a duration ago (30m, 2h, 7d) or an ISO instant/date.")
    String since;

    @Option(
        names = "--limit",
        paramLabel = "N",
        description = "At most this many rows (default 50).")
    Integer limit;

    @Option(names = "--all", description = "Include child runs (one per f.mcp / f.run call).")
    boolean all;

    private final Session s;

    ListRuns(Session s) {
      this.s = s;
    }

    @Override
    public Integer call() {
      Optional<RunStatus> st = Optional.ofNullable(status).map(ListRuns::status);
      Optional<Instant> from = Optional.ofNullable(since).map(ListRuns::since);
      int max = limit == null ? s.config().listDefaultLimit() : limit;
      if (max < 1 || max > s.config().listMaxLimit()) {
        throw new FlowsException(
            ErrorCode.INVALID_INPUT,
            "--limit must be between 1 and " + s.config().listMaxLimit(),
            "--limit",
            "pass a smaller positive number");
      }
      StringBuilder sql =
          new StringBuilder(
              "SELECT o.run_id, o.name, o.status::text, o.parent_run_id, o.created_at,"
                  + " o.completed_at, o.completion_reason::text, o.steps_total,"
                  + " o.steps_succeeded, o.steps_running, o.steps_parked, o.steps_failed,"
                  + " o.attempts_total, o.rerun_of, o.queue, o.waiting_reason,"
                  // Views only, so the read-only role (ops/sql/readonly-role.sql) can list too.
                  + " (SELECT count(*) FROM flows.runs_overview c"
                  + " WHERE c.parent_run_id = o.run_id)"
                  + " FROM flows.runs_overview o WHERE NOT o.tombstone");
      List<Object> args = new ArrayList<>();
      if (!all) {
        sql.append(" AND o.parent_run_id IS NULL");
      }
      st.ifPresent(
          x -> {
            sql.append(" AND o.status::text = ?");
            args.add(x.wire());
          });
      Optional.ofNullable(flow)
          .ifPresent(
              f -> {
                sql.append(" AND o.name = ?");
                args.add(f);
              });
      Optional.ofNullable(queue)
          .ifPresent(
              q -> {
                sql.append(" AND o.queue = ?");
                args.add(q);
              });
      from.ifPresent(
          t -> {
            sql.append(" AND o.created_at >= ?");
            args.add(Timestamp.from(t));
          });
      sql.append(" ORDER BY o.created_at DESC, o.run_id LIMIT ?");
      args.add(max);
      Database db = s.readyDatabase();
      ArrayNode runs = s.object().arrayNode();
      db.withConnection(
          c -> {
            try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
              for (int i = 0; i < args.size(); i++) {
                ps.setObject(i + 1, args.get(i));
              }
              try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                  ObjectNode r = runs.addObject();
                  r.put("runId", rs.getString(1));
                  r.put("name", rs.getString(2));
                  r.put("status", rs.getString(3));
                  r.put("parentRunId", rs.getString(4));
                  r.put("createdAt", rs.getTimestamp(5).toInstant().toString());
                  Timestamp done = rs.getTimestamp(6);
                  r.put("completedAt", done == null ? null : done.toInstant().toString());
                  r.put("completionReason", rs.getString(7));
                  r.put("stepsTotal", rs.getInt(8));
                  r.put("stepsSucceeded", rs.getInt(9));
                  r.put("stepsRunning", rs.getInt(10));
                  r.put("stepsParked", rs.getInt(11));
                  r.put("stepsFailed", rs.getInt(12));
                  r.put("attemptsTotal", rs.getLong(13));
                  r.put("rerunOf", rs.getString(14));
                  r.put("queue", rs.getString(15));
                  if (rs.getString(16) != null) {
                    r.put("waitingReason", rs.getString(16));
                  }
                  r.put("children", rs.getLong(17));
                }
              }
            }
            return null;
          });
      ObjectNode out = s.object();
      out.set("runs", runs);
      s.emit(
          out,
          p -> {
            if (runs.isEmpty()) {
              p.println("no runs" + (all ? "" : " (root runs; --all includes children)"));
              return;
            }
            p.println(
                String.format(
                    Locale.ROOT,
                    "%-38s %-20s %-10s %-6s %-8s %s",
                    "RUN",
                    "FLOW",
                    "STATUS",
                    "STEPS",
                    "CHILDREN",
                    "CREATED"));
            for (JsonNode r : runs) {
              p.println(
                  String.format(
                      Locale.ROOT,
                      "%-38s %-20s %-10s %-6s %-8d %s",
                      r.path("runId").asText(),
                      r.path("name").asText(),
                      r.path("status").asText(),
                      r.path("stepsSucceeded").asInt() + "/" + r.path("stepsTotal").asInt(),
                      r.path("children").asLong(),
                      r.path("createdAt").asText()));
            }
          });
      return Exit.SUCCESS;
    }

    private static RunStatus status(String wire) {
      try {
        return RunStatus.fromWire(wire.strip().toLowerCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new FlowsException(
            ErrorCode.INVALID_INPUT,
            "unknown run status " + wire,
            "--status",
            "use running, parked, succeeded, failed or canceled");
      }
    }

    private static Instant since(String text) {
      String t = text.strip();
      Matcher m = AGO.matcher(t);
      try {
        if (m.matches()) {
          long n = Long.parseLong(m.group(1));
          Duration d =
              switch (m.group(2)) {
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                default -> Duration.ofDays(n);
              };
          return Instant.now().minus(d);
        }
        if (t.length() == "2026-01-01".length()) {
          return LocalDate.parse(t).atStartOfDay(ZoneOffset.UTC).toInstant();
        }
        return Instant.parse(t);
      } catch (DateTimeParseException | ArithmeticException e) {
        throw new FlowsException(
            ErrorCode.INVALID_INPUT,
            "cannot read --since " + text,
            "--since",
            "use a duration ago (30m, 2h, 7d), a date (2026-11-29) or an instant"
                + " (2026-11-29T10:00:00Z)");
      }
    }
  }

  @Command(
      name = "show",
      mixinStandardHelpOptions = true,
      description =
          "A run's steps, attempts, leases, effects, receipts, diagnostics and timeline; child"
              + " runs nested under it.")
  static final class Show extends OnRun {
    Show(Session s) {
      super(s);
    }

    @Override
    int call(RunId id, Journal journal, RunSnapshot snapshot) {
      ObjectNode tree = RunView.tree(journal, snapshot, 0);
      tree.set("reruns", reruns(s, id));
      ObjectNode out = s.object();
      out.set("run", tree);
      s.emit(out, p -> RunView.print(p, tree, ""));
      return Exit.SUCCESS;
    }
  }

  /** The runs started again from {@code id} ({@code flows runs rerun}), oldest first. */
  static ArrayNode reruns(Session s, RunId id) {
    ArrayNode ids = s.object().arrayNode();
    s.readyDatabase()
        .withConnection(
            c -> {
              try (PreparedStatement ps =
                  c.prepareStatement(
                      "SELECT run_id FROM flows.runs_overview WHERE rerun_of = ?"
                          + " ORDER BY created_at, run_id")) {
                ps.setString(1, id.value());
                try (ResultSet rs = ps.executeQuery()) {
                  while (rs.next()) {
                    ids.add(rs.getString(1));
                  }
                }
              }
              return null;
            });
    return ids;
  }

  @Command(
      name = "watch",
      mixinStandardHelpOptions = true,
      description =
          "Follow a run (and its children) until it ends or parks, one line per journal entry."
              + " Exit 0 succeeded, 1 failed or canceled, 3 parked.")
  static final class Watch extends OnRun {
    Watch(Session s) {
      super(s);
    }

    @Override
    int call(RunId id, Journal journal, RunSnapshot before) throws InterruptedException {
      RunSnapshot now = new RunFollower(s, journal, id).untilSettled();
      emitEnd(s, journal, now, "watch.end");
      return exitFor(now.status());
    }
  }

  @Command(
      name = "cancel",
      mixinStandardHelpOptions = true,
      description = "Cancel a run: running attempts end canceled, the run completes canceled.")
  static final class Cancel extends OnRun {
    @Option(names = "--reason", paramLabel = "TEXT", description = "Journaled with the cancel.")
    String reason;

    Cancel(Session s) {
      super(s);
    }

    /** Found first ({@link OnRun}): the journal tombstones unknown ids, a typo must not. */
    @Override
    int call(RunId id, Journal journal, RunSnapshot before) {
      CancelOutcome outcome =
          journal.cancelRun(id, Optional.ofNullable(reason).orElse("canceled by " + operator()));
      ObjectNode out = s.object();
      out.put("runId", id.value());
      out.put("status", outcome.status().wire());
      out.put("alreadyTerminal", outcome.alreadyTerminal());
      s.emit(
          out,
          p ->
              p.println(
                  outcome.alreadyTerminal()
                      ? "run " + id.value() + " had already ended " + outcome.status().wire()
                      : "run " + id.value() + " " + outcome.status().wire()));
      return Exit.SUCCESS;
    }
  }

  @Command(
      name = "resume",
      mixinStandardHelpOptions = true,
      description = "Send a failed or parked run back to work from its journal.")
  static final class Resume extends OnRun {
    Resume(Session s) {
      super(s);
    }

    @Override
    int call(RunId id, Journal journal, RunSnapshot before) {
      RunSnapshot after = journal.resumeRun(id, operator());
      ObjectNode out = s.object();
      out.set("run", RunView.summary(after));
      s.emit(
          out,
          p ->
              p.println(
                  "run "
                      + id.value()
                      + " "
                      + after.status().wire()
                      + "; a worker picks it up (`flows runs watch "
                      + id.value()
                      + "` follows it)"));
      return Exit.SUCCESS;
    }
  }

  @Command(
      name = "resolve",
      mixinStandardHelpOptions = true,
      description =
          "Say whether a parked step's effect (effect_outcome_unknown) was performed: with its"
              + " output, the step succeeds with it; if not, the step runs again.")
  static final class Resolve extends OnRun {
    @Parameters(index = "1", paramLabel = "STEP", description = "The parked step's id.")
    String step;

    static final class Outcome {
      @Option(
          names = "--performed",
          paramLabel = "OUTPUT_JSON",
          required = true,
          description =
              "The effect happened; this JSON is its output (for an MCP call: the tool's result,"
                  + " {\"content\":[…],\"structuredContent\":{…},\"isError\":false}, or a bare"
                  + " object taken as its structured content; the journal builds the receipt).")
      String performed;

      @Option(
          names = "--not-performed",
          required = true,
          description = "The effect did not happen; the step runs again.")
      boolean notPerformed;
    }

    @ArgGroup(exclusive = true, multiplicity = "1")
    Outcome outcome;

    Resolve(Session s) {
      super(s);
    }

    @Override
    int call(RunId id, Journal journal, RunSnapshot before) {
      Optional<JsonNode> output = Optional.ofNullable(outcome.performed).map(Resolve::json);
      if (before.step(step).isEmpty()) {
        throw new NotFoundException(
            ErrorCode.STEP_NOT_FOUND, "run " + id.value() + " has no step " + step, step);
      }
      if (output.isEmpty() && before.step(step).get().status() == StepStatus.PARKED) {
        RunView.ResolveTarget target = RunView.resolveTarget(journal, before, step, 0);
        if (!target.run().equals(id)) {
          // The body parked because the call it awaits parked: running it again parks it again.
          throw new FlowsException(
              ErrorCode.INVALID_INPUT,
              "step "
                  + step
                  + " of run "
                  + id.value()
                  + " waits on child run "
                  + target.run().value()
                  + ", whose step "
                  + target.stepId()
                  + " is parked; resolving "
                  + step
                  + " as not performed would only park it again",
              id.value() + "/" + step,
              "resolve the child: " + target.command() + " (the parent then resumes by itself)");
        }
      }
      RunSnapshot after = journal.resolveStep(id, step, output, operator());
      ObjectNode out = s.object();
      out.set("run", RunView.summary(after));
      out.put("stepId", step);
      out.put("performed", output.isPresent());
      after.step(step).ifPresent(st -> out.put("stepStatus", st.status().wire()));
      s.emit(
          out,
          p ->
              p.println(
                  "step "
                      + step
                      + " of run "
                      + id.value()
                      + (output.isPresent()
                          ? " resolved as performed"
                          : " resolved as not performed; it runs again")
                      + "; run "
                      + after.status().wire()));
      return Exit.SUCCESS;
    }

    private static JsonNode json(String text) {
      try {
        JsonNode node =
            Session.JSON
                .reader()
                .with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .readTree(text);
        if (node == null || node.isMissingNode()) {
          throw new IOException("empty");
        }
        return node;
      } catch (IOException e) {
        throw new FlowsException(
            ErrorCode.INVALID_INPUT,
            "--performed is not JSON: " + Database.oneLine(e.getMessage()),
            "--performed",
            "pass the effect's output as JSON, e.g. --performed '{\"id\":\"ch_1\"}'");
      }
    }
  }

  @Command(
      name = "rerun",
      mixinStandardHelpOptions = true,
      description =
          "Start an ended flow run again as a new run: the same input under the current source"
              + " (--source FILE, else the flow file or class the run was started from), linked to"
              + " the old run. Then follow it as `flows run` does, unless --detach.")
  static final class Rerun implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "RUN", description = "The ended run to start again.")
    String run;

    @Option(
        names = "--source",
        paramLabel = "FILE",
        description = "The flow file to run (default: the file or class the run was started from).")
    String source;

    @Mixin StartOptions start = new StartOptions();

    private final Session s;

    Rerun(Session s) {
      this.s = s;
    }

    @Override
    public Integer call() throws InterruptedException {
      RunId id = runId(run);
      Journal journal = s.journal(EngineSupport.poolFor(start.capacity));
      RunSnapshot old = existing(journal, id);
      if (old.parentRunId().isPresent()) {
        throw new FlowsException(
            ErrorCode.INVALID_INPUT,
            "run " + id.value() + " is a child run (one f.mcp / f.sh / f.run call of its flow)",
            id.value(),
            "rerun its root: `flows runs rerun " + old.parentRunId().get().value() + "`");
      }
      if (!old.status().terminal()) {
        throw new FlowsException(
            ErrorCode.RUN_NOT_ENDED,
            "run " + id.value() + " is " + old.status().wire() + "; only an ended run is rerun",
            id.value(),
            old.status() == RunStatus.PARKED
                ? parkedHint(journal, old) + ", or `flows runs cancel " + id.value() + "` first"
                : "wait for it to end (`flows runs watch "
                    + id.value()
                    + "`), or `flows runs cancel "
                    + id.value()
                    + "` first");
      }
      JsonNode body = old.spec().path("steps").path(0);
      JsonNode instruction = body.path("agent").path("instruction");
      if (!"flow".equals(instruction.path("type").asText())) {
        throw new FlowsException(
            ErrorCode.INVALID_INPUT,
            "run " + id.value() + " is not a flow run (its spec was admitted directly)",
            id.value(),
            "admit its spec again through the journal API");
      }
      LoadedFlow loaded =
          LoadedFlow.load(flowSource(id, instruction), Path.of("").toAbsolutePath());
      String name = instruction.path("flow").asText();
      if (!loaded.flow().header().name().equals(name)) {
        throw new FlowsException(
            ErrorCode.FLOW_INVALID,
            (source == null ? "the run's source" : source)
                + " is flow "
                + loaded.flow().header().name()
                + ", run "
                + id.value()
                + " ran flow "
                + name,
            source == null ? id.value() : "--source",
            "pass the file of flow " + name + " with --source");
      }
      JsonNode input =
          body.path("input").isMissingNode() ? NullNode.getInstance() : body.get("input");
      return RunCommand.startAndFollow(s, journal, loaded, input, start, Optional.of(id));
    }

    /** {@code --source}, else the file or class the run was started from. */
    private String flowSource(RunId id, JsonNode instruction) {
      if (source != null) {
        return source;
      }
      JsonNode origin = instruction.path("origin");
      if ("class".equals(origin.path("kind").asText())) {
        return origin.path("className").asText();
      }
      if (origin.path("file").isTextual()) {
        return origin.path("file").asText();
      }
      throw new FlowsException(
          ErrorCode.FLOW_NOT_FOUND,
          "run " + id.value() + " does not record the flow file it was started from",
          id.value(),
          "pass the flow file with --source FILE");
    }
  }
}
