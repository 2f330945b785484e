package dev.flows.worker;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.journal.EffectElection;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.LeaseToken;
import java.util.Optional;

/** The effect verbs of one attempt, sent to the journal under its lease token. */
record JournalEffectGate(Journal journal, LeaseToken lease) implements EffectGate {
  @Override
  public EffectElection record(String surfacePath) {
    return journal.recordEffect(lease, surfacePath);
  }

  @Override
  public void confirm(String surfacePath, Optional<JsonNode> output) {
    journal.confirmEffect(lease, surfacePath, output);
  }
}
