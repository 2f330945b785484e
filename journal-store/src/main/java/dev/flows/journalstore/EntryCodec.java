package dev.flows.journalstore;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.journal.EntryJson;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.JournalEntry.RunSpawned;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.spec.RunSpecJson;
import java.util.Optional;

/**
 * Journal entries as rows: {@code entry_type} is {@link JournalEntry#type()}, {@code run_id},
 * {@code step_id} and {@code attempt} are columns, and {@code payload} is the kernel's {@link
 * EntryJson#payload} (the one owner of the format, public in SURFACE.md because operators read it
 * with plain SQL).
 */
final class EntryCodec {
  private EntryCodec() {}

  /** The columns of one entry row. */
  record Row(String type, Optional<String> stepId, Optional<Integer> attempt, String payload) {}

  static Row encode(JournalEntry entry) {
    ObjectNode p = EntryJson.payload(entry);
    Optional<String> stepId =
        p.has("stepId") ? Optional.of(p.get("stepId").asText()) : Optional.empty();
    Optional<Integer> attempt =
        p.has("attempt") ? Optional.of(p.get("attempt").asInt()) : Optional.empty();
    return new Row(entry.type(), stepId, attempt, text(p));
  }

  // ---------------------------------------------------------------- f.step hot path

  /**
   * The payload {@link #encode} writes for an {@link JournalEntry.EffectRecorded}, written straight
   * to text: the group commit encodes one per {@code f.step}, and building and serializing a tree
   * for five flat fields cost more than the text itself. Same fields, same order (EntryCodecTest
   * compares).
   */
  static String effectRecordedPayload(
      String surfacePath, String idempotencyKey, boolean takenOver, String stepId, int attempt) {
    StringBuilder b = new StringBuilder(PAYLOAD_CAPACITY);
    b.append("{\"surfacePath\":");
    quote(b, surfacePath);
    b.append(",\"idempotencyKey\":");
    quote(b, idempotencyKey);
    b.append(",\"takenOver\":").append(takenOver);
    return stepAndAttempt(b, stepId, attempt);
  }

  /**
   * The payload {@link #encode} writes for an {@link JournalEntry.EffectConfirmed} whose output is
   * already serialized ({@code outputJson}, as {@link #text} writes it): the memo is serialized
   * once and used both here and as the election's output.
   */
  static String effectConfirmedPayload(
      String surfacePath,
      String idempotencyKey,
      Optional<String> outputJson,
      String stepId,
      int attempt) {
    StringBuilder b =
        new StringBuilder(PAYLOAD_CAPACITY + outputJson.map(String::length).orElse(0));
    b.append("{\"surfacePath\":");
    quote(b, surfacePath);
    b.append(",\"idempotencyKey\":");
    quote(b, idempotencyKey);
    outputJson.ifPresent(o -> b.append(",\"output\":").append(o));
    return stepAndAttempt(b, stepId, attempt);
  }

  /**
   * Room for the fixed fields of an effect payload (a 64-hex key and short ids), to avoid regrowth.
   */
  private static final int PAYLOAD_CAPACITY = 192;

  private static String stepAndAttempt(StringBuilder b, String stepId, int attempt) {
    b.append(",\"stepId\":");
    quote(b, stepId);
    return b.append(",\"attempt\":").append(attempt).append('}').toString();
  }

  private static void quote(StringBuilder b, String s) {
    b.append('"');
    JsonStringEncoder.getInstance().quoteAsString(s, b);
    b.append('"');
  }

  /** The entry a row holds; a run's spec is read back in its canonical form. */
  static JournalEntry decode(RunRef runId, String type, JsonNode p) {
    JournalEntry entry = EntryJson.decode(runId, type, p);
    if (entry instanceof RunSpawned s) {
      return new RunSpawned(
          s.runId(),
          canonicalSpec(s.spec()),
          s.specHash(),
          s.parentRunId(),
          s.admissionKey(),
          s.createdBy(),
          s.rerunOf());
    }
    return entry;
  }

  /**
   * jsonb keeps numbers but not Jackson's node classes (a long 100 reads back as an int node), so a
   * stored spec is rebuilt through the canonical writer to compare equal to the original.
   */
  static JsonNode canonicalSpec(JsonNode stored) {
    if (!stored.isObject()) {
      return stored;
    }
    return RunSpecJson.write(StoredSpecs.readRun(stored));
  }

  static JsonNode parse(String json) {
    try {
      return RunSpecJson.MAPPER.readTree(json);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("stored JSON does not parse", e);
    }
  }

  static String text(JsonNode node) {
    try {
      return RunSpecJson.MAPPER.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a JSON tree always serializes", e);
    }
  }
}
