package dev.flows.sdk.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.journal.ClaimedAttempt;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.JournalRecord;
import dev.flows.kernel.journal.MemoVerb;
import dev.flows.kernel.journal.RunRef;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The memos of a body: what each position that is not a child call journaled, as a confirmed effect
 * of the root step at {@code /memo/<pos>} (and, for a signal wait, its outcome at {@code
 * /memo/<pos>/outcome}; for each failed attempt of a step with a policy, at {@code
 * /memo/<pos>/attempt/<n>}; for each attempt of a flow call with a policy, at {@code
 * /memo/<pos>/flow/<n>...}; for each round of input an {@code onInput} handler answered, at {@code
 * /memo/<pos>/input/<round>}). A step's memo is {@code {"name","value"}}; every other verb's names
 * it in {@code "verb"} ({@code f.sleep}, {@code f.awaitSignal}, {@code f.now}, ...), so a replay
 * that makes another call at a position is told so. A step's memo is written behind the body
 * ({@link MemoWriter}); every other memo waits for the step memos before it and for its own write,
 * and {@link #flush} is the barrier before anything that depends on the memos.
 */
final class BodyMemos {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  static final String OUTCOME = "/outcome";
  static final String ATTEMPT = "/attempt/";
  static final String FLOW = "/flow/";
  static final String INPUT = "/input/";

  /** The field of an {@code f.patched} memo naming the patch. */
  static final String PATCH_FIELD = "patch";

  private final Journal journal;
  private final ClaimedAttempt attempt;
  private final MemoWriter writer;
  private final String flow;
  private final Set<RunRef> children;
  private final Map<Integer, JsonNode> memos = new HashMap<>();
  private final Map<Integer, JsonNode> outcomes = new HashMap<>();
  private final Map<Integer, TreeMap<Integer, JsonNode>> attempts = new HashMap<>();
  private final Map<String, JsonNode> flowRecords = new HashMap<>();

  /**
   * Reads what earlier attempts journaled; {@code children}: the run's children, kept current.
   * Attempt 1 reads nothing: the attempt count never goes back, so no earlier attempt of the body
   * journaled a memo, and only the body's attempts write the run's memos.
   */
  BodyMemos(
      Journal journal,
      ClaimedAttempt attempt,
      MemoWriter writer,
      String flow,
      Set<RunRef> children) {
    this.journal = journal;
    this.attempt = attempt;
    this.writer = writer;
    this.flow = flow;
    this.children = children;
    List<JournalRecord> earlier =
        attempt.lease().attempt() == 1 ? List.of() : journal.entries(attempt.lease().runId());
    for (JournalRecord r : earlier) {
      if (r.entry() instanceof JournalEntry.EffectConfirmed c
          && c.surfacePath().startsWith("/memo/")
          && c.output().isPresent()) {
        String rest = c.surfacePath().substring("/memo/".length());
        int slash = rest.indexOf('/');
        int pos = Integer.parseInt(slash < 0 ? rest : rest.substring(0, slash));
        String sub = slash < 0 ? "" : rest.substring(slash);
        if (sub.isEmpty()) {
          memos.put(pos, c.output().get());
        } else if (sub.equals(OUTCOME)) {
          outcomes.put(pos, c.output().get());
        } else if (sub.startsWith(ATTEMPT)) {
          attempts
              .computeIfAbsent(pos, k -> new TreeMap<>())
              .put(Integer.parseInt(sub.substring(ATTEMPT.length())), c.output().get());
        } else if (sub.startsWith(FLOW) || sub.startsWith(INPUT)) {
          flowRecords.put(c.surfacePath(), c.output().get());
        }
      }
    }
  }

  boolean has(int pos) {
    return memos.containsKey(pos);
  }

  /** Whether the body got past {@code pos} before: the next position is journaled. */
  boolean passed(int pos) {
    return memos.containsKey(pos + 1) || children.contains(Lowering.childId(runId(), pos + 1));
  }

  /**
   * The memo at {@code pos}, when it is one of {@code verb}'s; refused {@code
   * nondeterministic_replay} when the position journaled another call. {@code call}: the call as
   * the body makes it now.
   */
  Optional<JsonNode> of(int pos, String verb, String call) {
    // The child id is a SHA-256: derived only when this run has children it could name.
    if (!children.isEmpty()) {
      RunRef wouldBeChild = Lowering.childId(runId(), pos);
      if (children.contains(wouldBeChild)) {
        throw ChildReports.nondeterministic(
            flow, pos, ChildReports.describe(journal, wouldBeChild), call);
      }
    }
    JsonNode m = memos.get(pos);
    if (m == null) {
      fresh(pos, call);
      return Optional.empty();
    }
    if (!verb.equals(verbOf(m))) {
      throw refuse(pos, m, call);
    }
    return Optional.of(m);
  }

  /** The refusal of a replay that makes {@code call} where {@code journaled} was made. */
  dev.flows.kernel.FlowsException refuse(int pos, JsonNode journaled, String call) {
    return ChildReports.nondeterministic(flow, pos, describe(journaled), call);
  }

  /** The memo of a step named {@code name} at {@code pos}, refused as {@link #of} is. */
  Optional<JsonNode> step(int pos, String name, String call) {
    Optional<JsonNode> m = of(pos, STEP, call);
    if (m.isPresent() && !m.get().path("name").asText().equals(name)) {
      throw refuse(pos, m.get(), call);
    }
    return m;
  }

  private static final String STEP = MemoVerb.STEP.wire();

  private static String verbOf(JsonNode memo) {
    return memo.has(MemoVerb.FIELD) ? memo.path(MemoVerb.FIELD).asText() : STEP;
  }

  /** How a journaled memo reads in messages, as the body once wrote the call. */
  static String describe(JsonNode memo) {
    String verb = verbOf(memo);
    if (verb.equals(STEP)) {
      return "f.step(\"" + memo.path("name").asText() + "\")";
    }
    for (String field : List.of("signal", PATCH_FIELD)) {
      if (memo.has(field)) {
        return verb + "(\"" + memo.path(field).asText() + "\")";
      }
    }
    return verb + "()";
  }

  /**
   * The body makes {@code call} at {@code pos}, where nothing is journaled: past the journal's end.
   * A replay check ({@link ReplayOnlyJournal}) stops here, before the call does anything.
   */
  void fresh(int pos, String call) {
    if (journal instanceof ReplayOnlyJournal.Marker replay) {
      throw replay.end(pos, call);
    }
  }

  /** Whether a child run was admitted for the call at {@code pos}. */
  boolean childAt(int pos) {
    return !children.isEmpty() && children.contains(Lowering.childId(runId(), pos));
  }

  /** The memo at {@code pos} (a child call made there is refused by the caller). */
  Optional<JsonNode> at(int pos) {
    return Optional.ofNullable(memos.get(pos));
  }

  /** Journals {@code memo} at {@code pos}; answers what the journal keeps there. */
  JsonNode keep(int pos, ObjectNode memo) {
    JsonNode kept = record("/memo/" + pos, memo);
    memos.put(pos, kept);
    return kept;
  }

  /**
   * Hands a step's memo at {@code pos} to the writer and answers it at once: the body goes on while
   * it is written (a refusal surfaces at the next memo or barrier).
   */
  JsonNode keepBehind(int pos, ObjectNode memo) {
    writer.writeBehind("/memo/" + pos, memo);
    memos.put(pos, memo);
    return memo;
  }

  /** A memo the body journaled itself at {@code pos} (recorded, then confirmed). */
  void remember(int pos, JsonNode memo) {
    memos.put(pos, memo);
  }

  /** The barrier: every memo handed over is journaled (or its refusal is thrown). */
  void flush() {
    writer.flush();
  }

  /** At a successful end: the memos never sent, for the completion to journal. */
  List<dev.flows.kernel.journal.MemoEffect> takeUnsent() {
    return writer.takeUnsent();
  }

  /** A verb's memo: {@code {"verb": verb}} and its fields. */
  static ObjectNode verb(String verb) {
    return JSON.objectNode().put(MemoVerb.FIELD, verb);
  }

  /** The failed attempts of the policy step at {@code pos}, in order. */
  List<JsonNode> attempts(int pos) {
    return List.copyOf(attempts.getOrDefault(pos, new TreeMap<>()).values());
  }

  /** Journals failed attempt {@code n} of the policy step at {@code pos}. */
  void keepAttempt(int pos, int n, ObjectNode memo) {
    attempts
        .computeIfAbsent(pos, k -> new TreeMap<>())
        .put(n, record("/memo/" + pos + ATTEMPT + n, memo));
  }

  /** The record of a flow call with a policy at {@code /memo/<pos>/flow/<rest>}. */
  Optional<JsonNode> flowRecord(int pos, String rest) {
    return Optional.ofNullable(flowRecords.get("/memo/" + pos + FLOW + rest));
  }

  /** Journals a flow call's record; answers what the journal keeps there. */
  JsonNode keepFlowRecord(int pos, String rest, ObjectNode memo) {
    return keepRecord("/memo/" + pos + FLOW + rest, memo);
  }

  private JsonNode keepRecord(String surface, ObjectNode memo) {
    JsonNode kept = record(surface, memo);
    flowRecords.put(surface, kept);
    return kept;
  }

  /**
   * The answer an {@code onInput} handler gave to round {@code round} of the call at {@code pos}.
   */
  Optional<JsonNode> inputAnswer(int pos, String round) {
    return Optional.ofNullable(flowRecords.get("/memo/" + pos + INPUT + round));
  }

  /** Journals an {@code onInput} answer; answers what the journal keeps there. */
  JsonNode keepInputAnswer(int pos, String round, ObjectNode memo) {
    return keepRecord("/memo/" + pos + INPUT + round, memo);
  }

  Optional<JsonNode> outcome(int pos) {
    return Optional.ofNullable(outcomes.get(pos));
  }

  static String outcomeSurface(int pos) {
    return "/memo/" + pos + OUTCOME;
  }

  /** Journals the outcome of the wait at {@code pos}; answers what the journal keeps there. */
  JsonNode keepOutcome(int pos, JsonNode outcome) {
    JsonNode kept = record(outcomeSurface(pos), outcome);
    outcomes.put(pos, kept);
    return kept;
  }

  /** An outcome the journal delivered itself (a signal taken at {@link #outcomeSurface}). */
  void delivered(int pos, JsonNode outcome) {
    outcomes.put(pos, outcome);
  }

  private JsonNode record(String surface, JsonNode memo) {
    // The value is in-process and is made again on replay until its memo is confirmed, so nothing
    // is gained by electing first: record and confirm together, after the memos before it.
    return writer.writeNow(surface, memo);
  }

  private RunRef runId() {
    return attempt.lease().runId();
  }
}
