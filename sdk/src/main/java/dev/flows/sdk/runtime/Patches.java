package dev.flows.sdk.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.journal.MemoVerb;
import java.util.Optional;
import java.util.function.IntSupplier;

/**
 * {@code f.patched(id)} and {@code f.deprecatePatch(id)}: a changed body asks at the point of its
 * change whether this run takes the new code. The journal decides: a patch memo there says the run
 * took it, another call there says the run passed this point on the code before, nothing there says
 * the run reaches it now, on this code, and takes it (its memo is journaled).
 */
final class Patches {
  private static final String VERB = MemoVerb.PATCHED.wire();

  private final BodyMemos memos;
  private final IntSupplier peekPosition;
  private final IntSupplier nextPosition;

  Patches(BodyMemos memos, IntSupplier peekPosition, IntSupplier nextPosition) {
    this.memos = memos;
    this.peekPosition = peekPosition;
    this.nextPosition = nextPosition;
  }

  boolean patched(String id) {
    check(id);
    int pos = peekPosition.getAsInt();
    if (memos.childAt(pos)) {
      return false;
    }
    Optional<JsonNode> there = memos.at(pos);
    if (there.isPresent()) {
      if (!isPatch(there.get(), id)) {
        return false;
      }
      nextPosition.getAsInt();
      return true;
    }
    memos.fresh(pos, call(id));
    nextPosition.getAsInt();
    memos.keep(pos, BodyMemos.verb(VERB).put(BodyMemos.PATCH_FIELD, id));
    return true;
  }

  void deprecate(String id) {
    check(id);
    int pos = peekPosition.getAsInt();
    if (!memos.childAt(pos) && memos.at(pos).filter(m -> isPatch(m, id)).isPresent()) {
      nextPosition.getAsInt();
    }
  }

  private static boolean isPatch(JsonNode memo, String id) {
    return MemoVerb.of(memo).filter(v -> v == MemoVerb.PATCHED).isPresent()
        && memo.path(BodyMemos.PATCH_FIELD).asText().equals(id);
  }

  private static String call(String id) {
    return VERB + "(\"" + id + "\")";
  }

  private static void check(String id) {
    if (id.isBlank()) {
      throw new FlowsException(
          ErrorCode.INVALID_INPUT,
          "a patch needs an id",
          VERB,
          "name the patch: f.patched(\"triage-adds-lookup\")");
    }
  }
}
