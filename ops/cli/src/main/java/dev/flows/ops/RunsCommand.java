package dev.flows.ops;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.NotFoundException;
import dev.flows.kernel.journal.CancelOutcome;
import dev.flows.kernel.journal.InputAnswer;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.lifecycle.StepStatus;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code flows runs list | show | watch | cancel | resume | resolve | answer | rerun | signal |
 * prune | export-fixture}.
 */
@Command(name = "runs", description = "Inspect and control runs.", mixinStandardHelpOptions = true)
final class RunsCommand implements Callable<Integer> {
  /** The subcommands, by name, in the order help lists them (added by {@link FlowsCli}). */
  static final java.util.Map<String, Class<?>> SUBCOMMANDS =
      FlowsCli.ordered(
          "list", ListRuns.class,
          "show", RunsCommand.Show.class,
          "watch", RunsCommand.Watch.class,
          "cancel", RunsCommand.Cancel.class,
          "resume", RunsCommand.Resume.class,
          "resolve", RunsCommand.Resolve.class,
          "answer", RunsCommand.Answer.class,
          "rerun", Rerun.class,
          "upgrade", RunsUpgradeCommand.class,
          "signal", RunsSignalCommand.class,
          "prune", RunsPruneCommand.class,
          "export-fixture", RunsExportFixtureCommand.class);

  @Override
  public Integer call() {
    throw new FlowsException(
        ErrorCode.INVALID_INPUT,
        "a subcommand is required",
        "flows runs",
        "use `flows runs list`, `show`, `watch`, `cancel`, `resume`, `resolve`, `answer`, `rerun`,"
            + " `upgrade`, `signal`, `prune`"
            + " or `export-fixture`");
  }

  static RunRef runId(String value) {
    return new RunRef(value);
  }

  /** The run, or {@code run_not_found} (nothing is written for an unknown id). */
  static RunSnapshot existing(Journal journal, RunRef id) {
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
  static void emitEnd(Session s, Journal journal, RunSnapshot now, String type, boolean full) {
    ObjectNode end = s.object();
    end.put("type", type);
    end.set("run", RunJson.summary(now));
    now.steps().stream()
        .filter(st -> st.output().isPresent())
        .reduce((a, b) -> b)
        .flatMap(st -> st.output())
        .ifPresent(o -> end.set("output", o));
    Optional<ObjectNode> failure = RunJson.failure(journal, now);
    failure.ifPresent(f -> end.set("failure", f));
    String id = now.runId().value();
    s.event(
        end,
        "run "
            + id
            + " "
            + now.status().wire()
            + now.completionReason().map(r -> " (" + r.wire() + ")").orElse("")
            + (end.has("output") ? "; output " + Payloads.oneLine(end.get("output"), full) : "")
            + failure.map(f -> "; " + RunText.failureText(f)).orElse("")
            + (now.status() == RunStatus.PARKED ? "; " + parkedHint(journal, now) : ""));
  }

  /** What an operator does about a parked run: the resolve command of its parked step. */
  static String parkedHint(Journal journal, RunSnapshot run) {
    return run.steps().stream()
        .filter(st -> st.status() == StepStatus.PARKED)
        .findFirst()
        .map(
            st ->
                "an operator "
                    + (RunJson.resolveTarget(journal, run, st.stepId(), 0).input().isPresent()
                        ? "answers"
                        : "resolves")
                    + " it: `"
                    + RunJson.resolveTarget(journal, run, st.stepId(), 0).command()
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
      RunRef id = runId(run);
      Journal journal = journal();
      return call(id, journal, existing(journal, id));
    }

    /** The command's journal: one connection, as it reads or changes the run and ends. */
    Journal journal() {
      return s.commandJournal();
    }

    abstract int call(RunRef id, Journal journal, RunSnapshot before) throws InterruptedException;
  }

  @Command(
      name = "show",
      mixinStandardHelpOptions = true,
      description =
          "A run's steps, attempts, leases, effects, receipts, diagnostics and timeline; child"
              + " runs nested under it.")
  static final class Show extends OnRun {
    @Mixin PayloadFlags payloads = new PayloadFlags();

    Show(Session s) {
      super(s);
    }

    @Override
    int call(RunRef id, Journal journal, RunSnapshot snapshot) {
      ObjectNode tree = RunJson.tree(journal, snapshot, 0);
      tree.set("reruns", s.readyDatabase().withConnection(c -> reruns(c, id)));
      ObjectNode out = s.object();
      out.set("run", tree);
      s.emit(out, p -> RunText.print(p, tree, "", payloads.full));
      return Exit.SUCCESS;
    }
  }

  /** The runs started again from {@code id} ({@code flows runs rerun}), oldest first. */
  static ArrayNode reruns(Connection c, RunRef id) throws SQLException {
    ArrayNode ids = Session.JSON.createArrayNode();
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
    return ids;
  }

  @Command(
      name = "watch",
      mixinStandardHelpOptions = true,
      description =
          "Follow a run (and its children) until it ends or parks, one line per journal entry."
              + " Exit 0 succeeded, 1 failed or canceled, 3 parked.")
  static final class Watch extends OnRun {
    @Mixin PayloadFlags payloads = new PayloadFlags();

    Watch(Session s) {
      super(s);
    }

    /** Pooled: a watch lasts, and its pool follows an embedded server that restarts meanwhile. */
    @Override
    Journal journal() {
      return s.journal();
    }

    @Override
    int call(RunRef id, Journal journal, RunSnapshot before) throws InterruptedException {
      RunSnapshot now = new RunFollower(s, journal, id, payloads.full).untilSettled();
      emitEnd(s, journal, now, "watch.end", payloads.full);
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
    int call(RunRef id, Journal journal, RunSnapshot before) {
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
    int call(RunRef id, Journal journal, RunSnapshot before) {
      RunSnapshot after = journal.resumeRun(id, operator());
      ObjectNode out = s.object();
      out.set("run", RunJson.summary(after));
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
      name = "answer",
      mixinStandardHelpOptions = true,
      description =
          "Answer a call parked input_required: RESPONSE_JSON is checked against what the server"
              + " asked (a form's schema; {} for a URL that was visited; with several requests an"
              + " object keyed by request) and journaled, and the call is sent again with it by"
              + " whichever worker claims it. A refused answer writes nothing.")
  static final class Answer extends OnRun {
    @Parameters(index = "1", paramLabel = "STEP", description = "The parked step's id.")
    String step;

    @Parameters(
        index = "2",
        arity = "0..1",
        paramLabel = "RESPONSE_JSON",
        description = "The answer (absent with --decline).")
    String response;

    @Option(names = "--decline", description = "Decline every request of the call.")
    boolean decline;

    Answer(Session s) {
      super(s);
    }

    @Override
    int call(RunRef id, Journal journal, RunSnapshot before) {
      if (decline == (response != null)) {
        throw new FlowsException(
            ErrorCode.INVALID_INPUT,
            decline ? "--decline takes no RESPONSE_JSON" : "RESPONSE_JSON or --decline is needed",
            "flows runs answer",
            "give either the answer as JSON or --decline");
      }
      InputAnswer answer =
          decline
              ? new InputAnswer.Decline()
              : new InputAnswer.Accept(Resolve.json(response, "RESPONSE_JSON"));
      RunSnapshot after = journal.answerInput(id, step, answer, operator());
      ObjectNode out = s.object();
      out.set("run", RunJson.summary(after));
      out.put("stepId", step);
      out.put("declined", decline);
      after.step(step).ifPresent(st -> out.put("stepStatus", st.status().wire()));
      s.emit(
          out,
          p ->
              p.println(
                  "step "
                      + step
                      + " of run "
                      + id.value()
                      + (decline ? " declined" : " answered")
                      + "; the call is sent again with the answer; run "
                      + after.status().wire()));
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
    int call(RunRef id, Journal journal, RunSnapshot before) {
      Optional<JsonNode> output =
          Optional.ofNullable(outcome.performed).map(t -> json(t, "--performed"));
      RunSnapshot after = resolve(journal, before, step, output, operator());
      ObjectNode out = s.object();
      out.set("run", RunJson.summary(after));
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

    /**
     * Resolves parked step {@code step} of {@code before} as {@code by}; refused {@code
     * step_not_found} for an unknown step, and {@code invalid_input} for a body parked on a parked
     * child resolved as not performed (it would only park again).
     */
    static RunSnapshot resolve(
        Journal journal, RunSnapshot before, String step, Optional<JsonNode> output, String by) {
      RunRef id = before.runId();
      if (before.step(step).isEmpty()) {
        throw new NotFoundException(
            ErrorCode.STEP_NOT_FOUND, "run " + id.value() + " has no step " + step, step);
      }
      if (output.isEmpty() && before.step(step).get().status() == StepStatus.PARKED) {
        RunJson.ResolveTarget target = RunJson.resolveTarget(journal, before, step, 0);
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
      return journal.resolveStep(id, step, output, by);
    }

    /** The effect's output given as JSON text; malformed or empty is refused at {@code place}. */
    static JsonNode json(String text, String place) {
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
            place + " is not JSON: " + Database.oneLine(e.getMessage()),
            place,
            "pass the effect's output as JSON, e.g. {\"id\":\"ch_1\"}");
      }
    }
  }
}
