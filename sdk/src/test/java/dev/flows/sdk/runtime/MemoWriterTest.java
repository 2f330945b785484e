package dev.flows.sdk.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.TextNode;
import dev.flows.kernel.journal.InMemoryJournal;
import dev.flows.kernel.journal.LeaseToken;
import dev.flows.kernel.journal.MemoEffect;
import dev.flows.kernel.journal.RunRef;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class MemoWriterTest {
  @Test
  void aMemoHandedOverAfterTheBodysEndIsRefusedRatherThanLeftForNobodyToWrite() {
    MemoWriter w =
        new MemoWriter(
            new InMemoryJournal(Clock.systemUTC()),
            new LeaseToken(RunRef.random(), "body", 1, "lease"),
            Duration.ofMinutes(1));
    w.writeBehind("/memo/0", TextNode.valueOf("a"));
    assertThat(w.takeUnsent()).extracting(MemoEffect::surfacePath).containsExactly("/memo/0");
    assertThatThrownBy(() -> w.writeBehind("/memo/1", TextNode.valueOf("b")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("/memo/1");
  }
}
