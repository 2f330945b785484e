package dev.flows.ops;

import static dev.flows.ops.Refusals.assertJsonRefused;
import static dev.flows.ops.Refusals.assertRefused;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.ClaimRequest;
import dev.flows.kernel.journal.ClaimedAttempt;
import dev.flows.kernel.journal.CompletionReason;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.Specs;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.journal.StepOutcome;
import dev.flows.kernel.journal.WorkerId;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.lifecycle.StepStatus;
import dev.flows.kernel.spec.RunSpec;
import dev.flows.kernel.spec.StepKind;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code flows runs ...} through {@link FlowsCli#run} against a migrated Postgres database, with
 * the runs put into each state by the real journal's verbs (as a worker would).
 */
class RunsCommandTest {
  private static final WorkerId WORKER = new WorkerId("test-worker");
  private static final Duration LEASE = Duration.ofSeconds(30);

  private static TestDatabase.Fresh db;
  private static PostgresJournal journal;
  private static Cli cli;
  private static Path home;

  @BeforeAll
  static void database() throws Exception {
    db = TestDatabase.fresh("runs_cli");
    journal = PostgresJournal.connect(JournalStoreConfig.forUrl(db.jdbcUrl()).withPoolSize(2));
    home = Files.createTempDirectory("flows-home");
    cli =
        new Cli(
            Map.of(
                Session.HOME_VARIABLE, home.toString(), DatabaseTarget.URL_VARIABLE, db.jdbcUrl()),
            OpsConfig.defaults().withWatchPollInterval(Duration.ofMillis(50)));
  }

  @AfterAll
  static void close() {
    journal.close();
    PgBinaries.deleteTree(home);
  }

  private static RunRef start(String flow) {
    String key = flow + "-" + UUID.randomUUID();
    return journal
        .admit(StartRun.of(key, Specs.named(flow, Specs.command("a", "true"))), Admit.queued())
        .runId();
  }

  private static RunRef childOf(RunRef parent, RunSpec spec) {
    return journal
        .admit(
            new StartRun(
                Optional.empty(), "child-" + UUID.randomUUID(), spec, Optional.of(parent), "test"),
            Admit.queued())
        .runId();
  }

  private static ClaimedAttempt claim(RunRef run) {
    // Other tests' runs may be ready too: claim until this run's step comes up.
    for (int i = 0; i < 50; i++) {
      List<ClaimedAttempt> got =
          journal.claim(new ClaimRequest(WORKER, Set.of(StepKind.DETERMINISTIC), 1, LEASE));
      for (ClaimedAttempt a : got) {
        if (a.lease().runId().equals(run)) {
          return a;
        }
        journal.complete(a.lease(), new StepOutcome.Succeeded(JsonNodeFactory.instance.nullNode()));
      }
    }
    throw new AssertionError("step of " + run + " never became claimable");
  }

  private static RunRef succeeded(String flow) {
    RunRef run = start(flow);
    journal.complete(
        claim(run).lease(),
        new StepOutcome.Succeeded(JsonNodeFactory.instance.objectNode().put("answer", 42)));
    return run;
  }

  private static RunRef failed(String flow) {
    RunRef run = start(flow);
    journal.complete(
        claim(run).lease(),
        new StepOutcome.Failed(
            CompletionReason.WORKER_ERROR,
            JsonNodeFactory.instance.objectNode().put("diagnostic", "boom"),
            false));
    return run;
  }

  private static RunRef parked(String flow) {
    RunRef run = start(flow);
    journal.complete(
        claim(run).lease(),
        new StepOutcome.Parked(
            CompletionReason.WORKER_ERROR,
            ErrorCode.EFFECT_OUTCOME_UNKNOWN,
            JsonNodeFactory.instance.objectNode().put("diagnostic", "effect_outcome_unknown")));
    return run;
  }

  @Test
  void listShowsRootRunsNewestFirstWithFilters() {
    RunRef ok = succeeded("list-ok");
    RunRef bad = failed("list-bad");
    JsonNode all = cli.run("runs", "list", "--json").json().path("runs");
    assertThat(all.findValuesAsText("runId")).contains(ok.value(), bad.value());
    Cli.Result byStatus = cli.run("runs", "list", "--status", "failed", "--json");
    assertThat(byStatus.exit()).isZero();
    assertThat(byStatus.json().path("runs").findValuesAsText("status")).containsOnly("failed");
    JsonNode byFlow = cli.run("runs", "list", "--flow", "list-ok", "--json").json().path("runs");
    assertThat(byFlow).hasSize(1);
    JsonNode row = byFlow.get(0);
    assertThat(row.path("runId").asText()).isEqualTo(ok.value());
    assertThat(row.path("status").asText()).isEqualTo("succeeded");
    assertThat(row.path("stepsTotal").asInt()).isEqualTo(1);
    assertThat(row.path("stepsSucceeded").asInt()).isEqualTo(1);
    assertThat(row.path("completionReason").asText()).isEqualTo("success");
    assertThat(
            cli.run("runs", "list", "--since", "1h", "--limit", "1", "--json").json().path("runs"))
        .hasSize(1);
    Cli.Result human = cli.run("runs", "list", "--flow", "list-ok");
    assertThat(human.out()).contains(ok.value()).contains("succeeded");
  }

  @Test
  void showNestsChildRunsUnderTheirParentWithAttemptsAndTimeline() {
    RunRef root = succeeded("show-root");
    RunRef child = childOf(root, Specs.named("show-child", Specs.command("a", "true")));
    Cli.Result r = cli.run("runs", "show", root.value(), "--json");
    assertThat(r.exit()).as(r.err()).isZero();
    JsonNode run = r.json().path("run");
    assertThat(run.path("status").asText()).isEqualTo("succeeded");
    JsonNode step = run.path("steps").get(0);
    assertThat(step.path("stepId").asText()).isEqualTo("a");
    assertThat(step.path("output").path("answer").asInt()).isEqualTo(42);
    JsonNode attempt = step.path("attempts").get(0);
    assertThat(attempt.path("workerId").asText()).isEqualTo(WORKER.value());
    assertThat(attempt.path("leaseId").asText()).isNotBlank();
    assertThat(attempt.path("reason").asText()).isEqualTo("success");
    assertThat(run.path("timeline").findValuesAsText("type"))
        .containsSubsequence(
            "run.spawned", "step.attempt.started", "step.completed", "run.completed");
    assertThat(run.path("children")).hasSize(1);
    assertThat(run.path("children").get(0).path("runId").asText()).isEqualTo(child.value());
    assertThat(run.path("children").get(0).path("parentRunId").asText()).isEqualTo(root.value());
    Cli.Result human = cli.run("runs", "show", root.value());
    assertThat(human.out()).contains("step a").contains("attempt 1").contains(child.value());
  }

  @Test
  void showGivesEachCallsPolicyInTextAndJson() {
    RunRef root = succeeded("policy-root");
    dev.flows.sdk.CallPolicy policy =
        dev.flows.sdk.CallPolicy.DEFAULT
            .withTimeout(Duration.ofMillis(800))
            .withRetry(dev.flows.sdk.RetryPolicy.attempts(4).doNotRetry("mcp_disconnected"))
            .withOnUnknownOutcome(dev.flows.sdk.UnknownOutcome.PARK)
            .withTasks(dev.flows.sdk.TaskUse.FORBIDDEN);
    com.fasterxml.jackson.databind.node.ObjectNode connection =
        JsonNodeFactory.instance.objectNode().put("transport", "http").put("url", "http://h/mcp");
    childOf(
        root,
        dev.flows.sdk.runtime.Lowering.mcpCall(
            "policy-root",
            "tools",
            "sleep",
            JsonNodeFactory.instance.objectNode(),
            connection,
            true,
            policy,
            dev.flows.sdk.runtime.SdkConfig.DEFAULTS));
    childOf(
        root,
        dev.flows.sdk.runtime.Lowering.command(
            "policy-root", List.of("true"), true, dev.flows.sdk.runtime.SdkConfig.DEFAULTS));

    JsonNode children = cli.run("runs", "show", root.value(), "--json").json().at("/run/children");

    JsonNode call = children.get(0).at("/steps/0/policy");
    assertThat(call.path("maxAttempts").asInt()).isEqualTo(4);
    assertThat(call.path("timeoutMs").asLong()).isEqualTo(800);
    assertThat(call.path("onUnknownOutcome").asText()).isEqualTo("park");
    assertThat(call.path("onUnknownOutcomeBy").asText()).isEqualTo("call");
    assertThat(call.path("doNotRetry").get(0).asText()).isEqualTo("mcp_disconnected");
    assertThat(call.path("tasks").asText()).isEqualTo("forbidden");
    JsonNode command = children.get(1).at("/steps/0/policy");
    assertThat(command.path("maxAttempts").asInt()).as("f.sh's default").isEqualTo(3);
    assertThat(command.has("timeoutMs")).isFalse();
    assertThat(cli.run("runs", "show", root.value()).out())
        .contains("policy: attempts 4, backoff 100 ms x2.0 up to 60000 ms, timeout 800 ms")
        .contains(", tasks forbidden, on unknown outcome park (the call's policy)")
        .contains("policy: attempts 3");
  }

  @Test
  void showPrintsTheDiagnosticOfAFailedAttempt() {
    RunRef run = failed("show-diag");
    JsonNode attempt =
        cli.run("runs", "show", run.value(), "--json")
            .json()
            .path("run")
            .path("steps")
            .get(0)
            .path("attempts")
            .get(0);
    assertThat(attempt.path("diagnostic").path("diagnostic").asText()).isEqualTo("boom");
    assertThat(cli.run("runs", "show", run.value()).out()).contains("boom");
  }

  @Test
  void watchExitsWithTheRunsOutcome() {
    Cli.Result ok = cli.run("runs", "watch", succeeded("watch-ok").value(), "--json");
    assertThat(ok.exit()).isEqualTo(Exit.SUCCESS);
    List<JsonNode> lines = ok.jsonLines();
    assertThat(lines.get(lines.size() - 1).path("type").asText()).isEqualTo("watch.end");
    assertThat(lines.get(lines.size() - 1).path("output").path("answer").asInt()).isEqualTo(42);
    assertThat(lines).extracting(l -> l.path("type").asText()).contains("step.completed");
    assertThat(cli.run("runs", "watch", failed("watch-bad").value()).exit()).isEqualTo(Exit.FAILED);
    assertThat(cli.run("runs", "watch", parked("watch-parked").value()).exit())
        .isEqualTo(Exit.PARKED);
  }

  @Test
  void watchFollowsARunThatIsStillGoingUntilItEnds() throws Exception {
    RunRef run = start("watch-live");
    CompletableFuture<Cli.Result> watching =
        CompletableFuture.supplyAsync(() -> cli.run("runs", "watch", run.value()));
    ClaimedAttempt a = claim(run);
    journal.complete(
        a.lease(), new StepOutcome.Succeeded(JsonNodeFactory.instance.textNode("done")));
    Cli.Result r = watching.get(60, TimeUnit.SECONDS);
    assertThat(r.exit()).isZero();
    assertThat(r.out())
        .contains("a (command true) started")
        .contains("a (command true) completed")
        .contains("succeeded");
  }

  @Test
  void cancelEndsARunAndIsIdempotent() {
    RunRef run = start("cancel-me");
    Cli.Result first = cli.run("runs", "cancel", run.value(), "--json");
    assertThat(first.exit()).isZero();
    assertThat(first.json().path("status").asText()).isEqualTo("canceled");
    assertThat(first.json().path("alreadyTerminal").asBoolean()).isFalse();
    assertThat(journal.run(run).orElseThrow().status()).isEqualTo(RunStatus.CANCELED);
    Cli.Result again = cli.run("runs", "cancel", run.value(), "--json");
    assertThat(again.exit()).isZero();
    assertThat(again.json().path("alreadyTerminal").asBoolean()).isTrue();
  }

  @Test
  void resumeSendsAFailedRunBackToWork() {
    RunRef run = failed("resume-me");
    Cli.Result r = cli.run("runs", "resume", run.value(), "--json");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.json().path("run").path("status").asText()).isEqualTo("running");
    assertThat(journal.run(run).orElseThrow().step("a").orElseThrow().status())
        .isEqualTo(StepStatus.READY);
  }

  @Test
  void resolvePerformedCompletesAParkedStepWithItsOutput() {
    RunRef run = parked("resolve-yes");
    Cli.Result r =
        cli.run("runs", "resolve", run.value(), "a", "--performed", "{\"id\":\"ch_1\"}", "--json");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.json().path("performed").asBoolean()).isTrue();
    assertThat(r.json().path("stepStatus").asText()).isEqualTo("succeeded");
    assertThat(
            journal
                .run(run)
                .orElseThrow()
                .step("a")
                .orElseThrow()
                .output()
                .orElseThrow()
                .path("id")
                .asText())
        .isEqualTo("ch_1");
  }

  private static ClaimedAttempt claimAgent(RunRef run) {
    for (int i = 0; i < 50; i++) {
      for (ClaimedAttempt a :
          journal.claim(new ClaimRequest(WORKER, Set.of(StepKind.AGENT), 1, LEASE))) {
        if (a.lease().runId().equals(run)) {
          return a;
        }
        journal.complete(a.lease(), new StepOutcome.Succeeded(JsonNodeFactory.instance.nullNode()));
      }
    }
    throw new AssertionError("agent step of " + run + " never became claimable");
  }

  private static StepOutcome.Parked unknownOutcome() {
    return new StepOutcome.Parked(
        CompletionReason.WORKER_ERROR,
        ErrorCode.EFFECT_OUTCOME_UNKNOWN,
        JsonNodeFactory.instance.objectNode().put("diagnostic", "effect_outcome_unknown"));
  }

  /** A root whose body parked because its MCP call (a child run) parked, as a flow's does. */
  private static RunRef[] parkedBodyOnParkedCall(String flow) {
    RunRef parent =
        journal
            .admit(
                StartRun.of(
                    flow + "-" + UUID.randomUUID(),
                    Specs.named(flow, Specs.agent("body", "/memo/*"))),
                Admit.queued())
            .runId();
    ClaimedAttempt body = claimAgent(parent);
    JsonNode input = JsonNodeFactory.instance.objectNode().put("title", "printer on fire");
    RunRef child =
        childOf(
            parent,
            Specs.named(flow + ":mcp", Specs.mcpCall("call", "tickets", "create_ticket", input)));
    ClaimedAttempt call = claimAgent(child);
    journal.recordEffect(call.lease(), "/mcp/tickets/create_ticket");
    journal.complete(call.lease(), unknownOutcome());
    journal.complete(body.lease(), unknownOutcome());
    return new RunRef[] {parent, child};
  }

  @Test
  void showPrintsForAParkedBodyTheResolveCommandOfTheParkedCallItWaitsOn() {
    RunRef[] runs = parkedBodyOnParkedCall("resolve-show");
    String expected = "flows runs resolve " + runs[1].value() + " call (--performed 'RESULT_JSON'";

    JsonNode show = cli.run("runs", "show", runs[0].value(), "--json").json().path("run");
    assertThat(show.path("steps").get(0).path("resolveCommand").asText()).startsWith(expected);
    JsonNode child = show.path("children").get(0);
    assertThat(child.path("steps").get(0).path("resolveCommand").asText()).startsWith(expected);
    Cli.Result human = cli.run("runs", "show", runs[0].value());
    assertThat(human.out()).contains("to resolve: " + expected).contains("structuredContent");
    Cli.Result watch = cli.run("runs", "watch", runs[0].value());
    assertThat(watch.exit()).isEqualTo(Exit.PARKED);
    assertThat(watch.out()).contains(expected);
  }

  @Test
  void resolvingAParkedBodyAsNotPerformedIsRefusedNamingTheChildToResolve() {
    RunRef[] runs = parkedBodyOnParkedCall("resolve-body");

    Cli.Result r = cli.run("runs", "resolve", runs[0].value(), "body", "--not-performed");

    assertRefused(r, "invalid_input", Exit.REFUSED);
    assertThat(r.err()).contains(runs[1].value()).contains("step call");
    assertThat(journal.run(runs[0]).orElseThrow().status()).isEqualTo(RunStatus.PARKED);
  }

  @Test
  void resolvingAParkedCallAsPerformedStoresItsReceiptAndResumesTheParent() {
    RunRef[] runs = parkedBodyOnParkedCall("resolve-call");

    Cli.Result r =
        cli.run(
            "runs",
            "resolve",
            runs[1].value(),
            "call",
            "--performed",
            "{\"id\":\"T-1001\"}",
            "--json");

    assertThat(r.exit()).as(r.err()).isZero();
    JsonNode receipt = journal.run(runs[1]).orElseThrow().steps().getFirst().output().orElseThrow();
    assertThat(receipt.path("type").asText()).isEqualTo("mcp");
    assertThat(receipt.path("server").asText()).isEqualTo("tickets");
    assertThat(receipt.path("tool").asText()).isEqualTo("create_ticket");
    assertThat(receipt.path("input").path("title").asText()).isEqualTo("printer on fire");
    assertThat(receipt.path("output").path("structuredContent").path("id").asText())
        .isEqualTo("T-1001");
    assertThat(receipt.path("idempotencyKey").asText())
        .isEqualTo(dev.flows.kernel.keys.Keys.idempotencyKey(runs[1], "call"));
    assertThat(journal.run(runs[0]).orElseThrow().status()).isEqualTo(RunStatus.RUNNING);
  }

  @Test
  void resolveNotPerformedSendsTheStepBackToReady() {
    RunRef run = parked("resolve-no");
    Cli.Result r = cli.run("runs", "resolve", run.value(), "a", "--not-performed", "--json");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.json().path("stepStatus").asText()).isEqualTo("ready");
  }

  @Test
  void anUnknownRunIsRefusedByEveryCommandAndNothingIsWritten() {
    String unknown = "run_does_not_exist_" + UUID.randomUUID().toString().replace("-", "");
    for (String[] args :
        List.of(
            new String[] {"runs", "show", unknown, "--json"},
            new String[] {"runs", "watch", unknown, "--json"},
            new String[] {"runs", "cancel", unknown, "--json"},
            new String[] {"runs", "resume", unknown, "--json"},
            new String[] {"runs", "resolve", unknown, "a", "--not-performed", "--json"})) {
      assertJsonRefused(cli.run(args), "run_not_found", Exit.REFUSED);
    }
    assertThat(journal.run(new RunRef(unknown))).as("cancel left no tombstone").isEmpty();
  }

  @Test
  void malformedInputIsRefusedBeforeAnyWrite() {
    RunRef run = parked("malformed");
    assertJsonRefused(cli.run("runs", "show", "bad id!", "--json"), "invalid_input", 2);
    assertJsonRefused(
        cli.run("runs", "resolve", run.value(), "a", "--performed", "{not json", "--json"),
        "invalid_input",
        2);
    assertJsonRefused(
        cli.run("runs", "resolve", run.value(), "a", "--performed", "{} trailing", "--json"),
        "invalid_input",
        2);
    assertRefused(
        cli.run("runs", "resolve", run.value(), "a", "--performed", "1", "--not-performed"),
        "invalid_input",
        2);
    assertRefused(cli.run("runs", "resolve", run.value(), "a"), "invalid_input", 2);
    assertJsonRefused(
        cli.run("runs", "resolve", run.value(), "nope", "--not-performed", "--json"),
        "step_not_found",
        2);
    assertJsonRefused(cli.run("runs", "list", "--status", "bogus", "--json"), "invalid_input", 2);
    assertJsonRefused(
        cli.run("runs", "list", "--since", "yesterday", "--json"), "config_invalid", 2);
    assertJsonRefused(cli.run("runs", "list", "--limit", "0", "--json"), "config_invalid", 2);
    assertThat(journal.run(run).orElseThrow().status()).isEqualTo(RunStatus.PARKED);
  }

  @Test
  void anUnreachableDatabaseIsRefusedByRunsCommands() {
    Cli unreachable = cli.with(DatabaseTarget.URL_VARIABLE, "postgres://x:y@127.0.0.1:1/flows");
    assertJsonRefused(unreachable.run("runs", "list", "--json"), "database_unavailable", 1);
    assertJsonRefused(unreachable.run("runs", "show", "r1", "--json"), "database_unavailable", 1);
  }
}
