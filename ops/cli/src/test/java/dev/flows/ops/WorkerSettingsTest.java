package dev.flows.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.journal.PayloadLimits;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.worker.WorkerConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code flows worker}'s settings from flags and FLOWS_WORKER_*, refused config_invalid. */
class WorkerSettingsTest {
  private static final WorkerSettings.Flags NONE =
      new WorkerSettings.Flags(null, null, null, null, null);

  @TempDir Path home;

  @Test
  void withNothingGivenTheWorkerConfigDefaultsApplyWithTheCliPollInterval() {
    WorkerConfig c = WorkerSettings.resolve(NONE, Map.of());
    assertThat(c.capacity()).isEqualTo(WorkerConfig.DEFAULT_CAPACITY);
    assertThat(c.defaultLease()).isEqualTo(WorkerConfig.DEFAULT_LEASE);
    assertThat(c.pollInterval()).isEqualTo(WorkerSettings.CLI_POLL);
    assertThat(c.reconcileInterval()).isEqualTo(WorkerConfig.DEFAULT_RECONCILE_INTERVAL);
    assertThat(c.stopGrace()).isEqualTo(WorkerConfig.DEFAULT_STOP_GRACE);
  }

  @Test
  void eachSettingComesFromItsVariableAndAFlagWinsOverTheVariable() {
    Map<String, String> env =
        Map.of(
            "FLOWS_WORKER_CAPACITY", "4",
            "FLOWS_WORKER_LEASE", "2m",
            "FLOWS_WORKER_POLL", "500ms",
            "FLOWS_WORKER_RECONCILE", "7s",
            "FLOWS_WORKER_STOP_GRACE", "0s");
    WorkerConfig fromEnv = WorkerSettings.resolve(NONE, env);
    assertThat(fromEnv.capacity()).isEqualTo(4);
    assertThat(fromEnv.defaultLease()).isEqualTo(Duration.ofMinutes(2));
    assertThat(fromEnv.pollInterval()).isEqualTo(Duration.ofMillis(500));
    assertThat(fromEnv.reconcileInterval()).isEqualTo(Duration.ofSeconds(7));
    assertThat(fromEnv.stopGrace()).isZero();

    WorkerConfig flags =
        WorkerSettings.resolve(new WorkerSettings.Flags("8", "45s", "1s", "2s", "1h"), env);
    assertThat(flags.capacity()).isEqualTo(8);
    assertThat(flags.defaultLease()).isEqualTo(Duration.ofSeconds(45));
    assertThat(flags.pollInterval()).isEqualTo(Duration.ofSeconds(1));
    assertThat(flags.reconcileInterval()).isEqualTo(Duration.ofSeconds(2));
    assertThat(flags.stopGrace()).isEqualTo(Duration.ofHours(1));
  }

  @Test
  void aBadValueIsRefusedConfigInvalidAtTheFlagOrVariableItCameFrom() {
    assertRefused(
        () -> WorkerSettings.resolve(NONE, Map.of("FLOWS_WORKER_CAPACITY", "0")),
        "FLOWS_WORKER_CAPACITY");
    assertRefused(
        () ->
            WorkerSettings.resolve(
                new WorkerSettings.Flags("many", null, null, null, null), Map.of()),
        "--capacity");
    assertRefused(
        () ->
            WorkerSettings.resolve(
                new WorkerSettings.Flags(null, null, "soon", null, null), Map.of()),
        "--poll");
    assertRefused(
        () ->
            WorkerSettings.resolve(
                new WorkerSettings.Flags(null, null, null, "0s", null), Map.of()),
        "--reconcile");
    assertRefused(
        () -> WorkerSettings.resolve(NONE, Map.of("FLOWS_WORKER_STOP_GRACE", "-1s")),
        "FLOWS_WORKER_STOP_GRACE");
    assertRefused(() -> WorkerSettings.queues(List.of("no spaces")), "--queue");
  }

  @Test
  void aLeaseShorterThanTheRenewalPeriodAllowsIsRefusedWithTheMinimumAsTheFix() {
    assertThatThrownBy(
            () ->
                WorkerSettings.resolve(
                    new WorkerSettings.Flags(null, "300ms", null, null, null), Map.of()))
        .isInstanceOfSatisfying(
            FlowsException.class,
            e -> {
              assertThat(e.code()).isEqualTo(ErrorCode.CONFIG_INVALID);
              assertThat(e.place()).contains("--lease");
              assertThat(e.getMessage()).contains("300ms", "renewal");
              assertThat(e.fix()).hasValueSatisfying(f -> assertThat(f).contains("at least 1s"));
            });
    assertThat(WorkerSettings.resolve(NONE, Map.of("FLOWS_WORKER_LEASE", "1s")).defaultLease())
        .isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void theWorkerCommandRefusesABadSettingInOneLineBeforeTouchingTheDatabase() {
    Cli cli = new Cli(Map.of(Session.HOME_VARIABLE, home.toString()));
    Cli.Result lease = cli.run("worker", "--lease", "10ms");
    assertThat(lease.exit()).isEqualTo(Exit.REFUSED);
    assertThat(lease.errLines())
        .singleElement()
        .satisfies(
            l -> assertThat(l).startsWith("error config_invalid: ").contains("(at --lease) fix: "));
    Cli.Result env = cli.with("FLOWS_WORKER_POLL", "fast").run("worker");
    assertThat(env.exit()).isEqualTo(Exit.REFUSED);
    assertThat(env.errLines())
        .singleElement()
        .satisfies(l -> assertThat(l).contains("(at FLOWS_WORKER_POLL)"));
    Cli.Result dir = cli.run("worker", "--flows", home.resolve("nowhere").toString());
    assertThat(dir.exit()).isEqualTo(Exit.REFUSED);
    assertThat(dir.errLines())
        .singleElement()
        .satisfies(
            l ->
                assertThat(l)
                    .startsWith("error config_invalid: no directory")
                    .contains("(at --flows)"));
    assertThat(home.resolve("pg")).as("no database was started").doesNotExist();
  }

  @Test
  void theLargestMcpResultComesFromTheFlagOrItsVariableAndIsRefusedBelowTheSmallest() {
    assertThat(WorkerSettings.mcpLimits(null, Map.of()).maxResultBytes())
        .isEqualTo(McpClientConfig.DEFAULT_MAX_RESULT_BYTES);
    Map<String, String> env = Map.of("FLOWS_WORKER_MAX_RESULT_BYTES", "65536");
    assertThat(WorkerSettings.mcpLimits(null, env).maxResultBytes()).isEqualTo(65536);
    assertThat(WorkerSettings.mcpLimits("1048576", env).maxResultBytes()).isEqualTo(1 << 20);
    assertRefused(() -> WorkerSettings.mcpLimits("100", Map.of()), "--max-result-bytes");
    assertRefused(
        () -> WorkerSettings.mcpLimits(null, Map.of("FLOWS_WORKER_MAX_RESULT_BYTES", "4M")),
        "FLOWS_WORKER_MAX_RESULT_BYTES");
  }

  @Test
  void theLargestStepOutputAndReceiptComeFromTheirFlagsOrVariablesAndAreRefusedOutOfRange() {
    dev.flows.kernel.journal.PayloadLimits defaults =
        WorkerSettings.payloadLimits(PayloadLimits.DEFAULTS, null, null, Map.of());
    assertThat(defaults).isEqualTo(dev.flows.kernel.journal.PayloadLimits.DEFAULTS);
    Map<String, String> env =
        Map.of("FLOWS_WORKER_MAX_OUTPUT_BYTES", "65536", "FLOWS_WORKER_MAX_RECEIPT_BYTES", "8192");
    assertThat(
            WorkerSettings.payloadLimits(PayloadLimits.DEFAULTS, null, null, env)
                .maxStepOutputBytes())
        .isEqualTo(65536);
    assertThat(
            WorkerSettings.payloadLimits(PayloadLimits.DEFAULTS, null, null, env).maxReceiptBytes())
        .isEqualTo(8192);
    assertThat(WorkerSettings.payloadLimits(PayloadLimits.DEFAULTS, "16777216", "9000", env))
        .returns(16777216L, dev.flows.kernel.journal.PayloadLimits::maxStepOutputBytes)
        .returns(9000L, dev.flows.kernel.journal.PayloadLimits::maxReceiptBytes)
        .returns(
            defaults.maxRunInputBytes(), dev.flows.kernel.journal.PayloadLimits::maxRunInputBytes);
    assertRefused(
        () -> WorkerSettings.payloadLimits(PayloadLimits.DEFAULTS, "100", null, Map.of()),
        "--max-output-bytes");
    assertRefused(
        () ->
            WorkerSettings.payloadLimits(
                PayloadLimits.DEFAULTS, null, null, Map.of("FLOWS_WORKER_MAX_RECEIPT_BYTES", "4M")),
        "FLOWS_WORKER_MAX_RECEIPT_BYTES");
  }

  @Test
  void theJournalsOwnLimitsComeFromTheirFlagsOrVariablesAndAreRefusedOutOfRange() {
    dev.flows.kernel.journal.PayloadLimits base =
        dev.flows.kernel.journal.PayloadLimits.DEFAULTS.withMaxStepOutputBytes(65536);
    assertThat(WorkerSettings.journalLimits(base, null, null, null, Map.of())).isEqualTo(base);
    Map<String, String> env =
        Map.of(
            "FLOWS_WORKER_MAX_RUN_INPUT_BYTES", "8192",
            "FLOWS_WORKER_MAX_SIGNAL_BYTES", "9000",
            "FLOWS_WORKER_MAX_ANSWER_BYTES", "10000");
    assertThat(WorkerSettings.journalLimits(base, null, null, null, env))
        .returns(8192L, dev.flows.kernel.journal.PayloadLimits::maxRunInputBytes)
        .returns(9000L, dev.flows.kernel.journal.PayloadLimits::maxSignalBytes)
        .returns(10000L, dev.flows.kernel.journal.PayloadLimits::maxAnswerBytes)
        .returns(65536L, dev.flows.kernel.journal.PayloadLimits::maxStepOutputBytes);
    assertThat(WorkerSettings.journalLimits(base, "16384", "20000", "30000", env))
        .returns(16384L, dev.flows.kernel.journal.PayloadLimits::maxRunInputBytes)
        .returns(20000L, dev.flows.kernel.journal.PayloadLimits::maxSignalBytes)
        .returns(30000L, dev.flows.kernel.journal.PayloadLimits::maxAnswerBytes);
    assertRefused(
        () -> WorkerSettings.journalLimits(base, "100", null, null, Map.of()),
        "--max-run-input-bytes");
    assertRefused(
        () -> WorkerSettings.journalLimits(base, null, "268435456", null, Map.of()),
        "--max-signal-bytes");
    assertRefused(
        () ->
            WorkerSettings.journalLimits(
                base, null, null, null, Map.of("FLOWS_WORKER_MAX_ANSWER_BYTES", "4M")),
        "FLOWS_WORKER_MAX_ANSWER_BYTES");
  }

  @Test
  void theWorkerCommandRefusesABadJournalLimitInOneLineBeforeTouchingTheDatabase() {
    Cli cli = new Cli(Map.of(Session.HOME_VARIABLE, home.toString()));
    Cli.Result signal = cli.run("worker", "--max-signal-bytes", "100");
    assertThat(signal.exit()).isEqualTo(Exit.REFUSED);
    assertThat(signal.errLines())
        .singleElement()
        .satisfies(
            l ->
                assertThat(l)
                    .startsWith("error config_invalid: ")
                    .contains("(at --max-signal-bytes) fix: "));
    Cli.Result input = cli.with("FLOWS_WORKER_MAX_RUN_INPUT_BYTES", "lots").run("worker");
    assertThat(input.exit()).isEqualTo(Exit.REFUSED);
    assertThat(input.errLines())
        .singleElement()
        .satisfies(l -> assertThat(l).contains("(at FLOWS_WORKER_MAX_RUN_INPUT_BYTES)"));
    assertThat(home.resolve("pg")).as("no database was started").doesNotExist();
  }

  @Test
  void aFlagWinsOverItsVariableWhichWinsOverFlowsJsonWhichWinsOverTheDefault() {
    PayloadLimits file =
        PayloadLimits.DEFAULTS
            .withMaxRunInputBytes(8192)
            .withMaxSignalBytes(8192)
            .withMaxStepOutputBytes(8192)
            .withMaxReceiptBytes(8192);
    Map<String, String> env =
        Map.of("FLOWS_WORKER_MAX_SIGNAL_BYTES", "9000", "FLOWS_WORKER_MAX_RECEIPT_BYTES", "9000");

    PayloadLimits worker =
        WorkerSettings.journalLimits(
            WorkerSettings.payloadLimits(file, "16384", null, env), "16384", null, null, env);

    assertThat(worker)
        .returns(16384L, PayloadLimits::maxRunInputBytes) // flag over file
        .returns(16384L, PayloadLimits::maxStepOutputBytes) // flag over file
        .returns(9000L, PayloadLimits::maxSignalBytes) // variable over file
        .returns(9000L, PayloadLimits::maxReceiptBytes) // variable over file
        .returns(PayloadLimits.DEFAULT_MAX_BYTES, PayloadLimits::maxAnswerBytes); // default
    assertThat(WorkerSettings.journalLimits(file, null, null, null, Map.of())).isEqualTo(file);
  }

  @Test
  void theWorkerCommandRefusesABadFlowsJsonLimitInOneLineNamingTheKeyBeforeTouchingTheDatabase()
      throws Exception {
    Path file =
        java.nio.file.Files.writeString(
            home.resolve("flows.json"), "{\"limits\": {\"maxSignalBytes\": 100}}");
    Cli cli =
        new Cli(
            Map.of(
                Session.HOME_VARIABLE,
                home.resolve("home").toString(),
                ConfigLimits.CONFIG_VARIABLE,
                file.toString()));

    Cli.Result worker = cli.run("worker");

    assertThat(worker.exit()).isEqualTo(Exit.REFUSED);
    assertThat(worker.errLines())
        .singleElement()
        .satisfies(
            l ->
                assertThat(l)
                    .startsWith("error config_invalid: ")
                    .contains("/limits/maxSignalBytes")
                    .contains("4096 to 268435455"));
    assertThat(home.resolve("home").resolve("pg")).as("no database was started").doesNotExist();
  }

  private static void assertRefused(
      org.assertj.core.api.ThrowableAssert.ThrowingCallable call, String place) {
    assertThatThrownBy(call)
        .isInstanceOfSatisfying(
            FlowsException.class,
            e -> {
              assertThat(e.code()).isEqualTo(ErrorCode.CONFIG_INVALID);
              assertThat(e.place()).contains(place);
            });
  }

  @Test
  void theRetentionGivenReachesTheWorkersPrunerAndIsShownAsTheSettingItWasReadFrom() {
    assertThat(WorkerSettings.retention(null, Map.of())).isEmpty();

    WorkerSettings.Retention fromEnv =
        WorkerSettings.retention(null, Map.of(WorkerSettings.RETENTION_VARIABLE, " 30d\n"))
            .orElseThrow();
    assertThat(fromEnv.prunerConfig().olderThan()).isEqualTo(Duration.ofDays(30));
    assertThat(fromEnv.written()).isEqualTo("30d");

    WorkerSettings.Retention fromFlag =
        WorkerSettings.retention(" 12h ", Map.of(WorkerSettings.RETENTION_VARIABLE, "30d"))
            .orElseThrow();
    assertThat(fromFlag.prunerConfig().olderThan()).isEqualTo(Duration.ofHours(12));
    assertThat(fromFlag.written()).isEqualTo("12h");
  }
}
