package dev.flows.worker.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flows.kernel.journal.ClaimedAttempt;
import dev.flows.kernel.journal.Disposition;
import dev.flows.kernel.journal.ExpiredAttempt;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.LeaseToken;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.Specs;
import dev.flows.kernel.journal.WorkerId;
import java.lang.reflect.Proxy;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** With nothing installed, telemetry records nothing and never reads the journal. */
class TelemetryOffTest {
  @Test
  void withoutAnInstalledOpenTelemetryNoSpanIsMadeAndTheJournalIsNeverRead() {
    FlowsTelemetry.uninstall();
    AtomicInteger reads = new AtomicInteger();
    Journal journal =
        (Journal)
            Proxy.newProxyInstance(
                Journal.class.getClassLoader(),
                new Class<?>[] {Journal.class},
                (p, m, a) -> {
                  reads.incrementAndGet();
                  throw new AssertionError("telemetry read the journal: " + m.getName());
                });
    LeaseToken lease = new LeaseToken(new RunRef("child"), "a", 1, "lease-1");
    ClaimedAttempt attempt =
        new ClaimedAttempt(
            lease,
            Instant.now(),
            1_000,
            Specs.command("a", "true"),
            "key",
            Optional.of(new RunRef("parent")));

    assertThat(RunTraces.startAttempt(journal, attempt, new WorkerId("w")))
        .isSameAs(AttemptSpan.NONE);
    RunTraces.expired(journal, new ExpiredAttempt(lease, Disposition.RETRY), Instant.now());
    FlowsTelemetry.metrics().attemptCompleted("success");
    assertThat(FlowsTelemetry.enabled()).isFalse();
    assertThat(reads).hasValue(0);
  }
}
