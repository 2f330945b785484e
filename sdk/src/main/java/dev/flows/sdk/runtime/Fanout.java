package dev.flows.sdk.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.journal.MemoVerb;
import dev.flows.sdk.Pending;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.IntSupplier;
import java.util.stream.Collectors;

/**
 * Pending calls and the waits on several ({@code f.all}, {@code f.any}). The calls were issued
 * (positions taken, children admitted) before any wait, so the waits need no journal entry of their
 * own, except the winner of {@code f.any}: a memo {@code {"verb":"f.any","of":[positions],
 * "winner":index}} at its position, so a replay answers the same one.
 */
final class Fanout {
  static final String ANY = MemoVerb.ANY.wire();
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  private final Children children;
  private final BodyMemos memos;
  private final InputAnswers inputs;
  private final IntSupplier nextPosition;
  private final Runnable guard;
  private final String flow;

  /** {@code guard} throws when the attempt is over (the body was told to suspend). */
  Fanout(
      Children children,
      BodyMemos memos,
      InputAnswers inputs,
      IntSupplier nextPosition,
      Runnable guard,
      String flow) {
    this.children = children;
    this.memos = memos;
    this.inputs = inputs;
    this.nextPosition = nextPosition;
    this.guard = guard;
    this.flow = flow;
  }

  <T> ChildPending<T> pending(
      int position,
      Children.Awaited call,
      Optional<JsonNode> ready,
      java.util.function.Function<JsonNode, T> convert) {
    return pending(position, call, ready, convert, Optional.empty());
  }

  <T> ChildPending<T> pending(
      int position,
      Children.Awaited call,
      Optional<JsonNode> ready,
      java.util.function.Function<JsonNode, T> convert,
      Optional<dev.flows.sdk.Ctx.InputHandler> onInput) {
    return new ChildPending<>(this, position, call, ready, convert, onInput);
  }

  <T> T get(ChildPending<T> p) {
    guard.run();
    return p.convert()
        .apply(p.ready().orElseGet(() -> answering(p, () -> children.await(p.call()))));
  }

  /** {@code await}, with the call's requests for input answered by its handler, if any. */
  private JsonNode answering(ChildPending<?> p, java.util.function.Supplier<JsonNode> await) {
    if (p.onInput().isEmpty() || !(p.call() instanceof Children.Issued issued)) {
      return await.get();
    }
    return inputs.await(p.position(), issued.run(), issued.call(), p.onInput(), await);
  }

  <T> List<T> all(List<? extends Pending<T>> pending) {
    guard.run();
    List<ChildPending<T>> calls = own(pending);
    List<Children.Awaited> open =
        calls.stream().filter(c -> c.ready().isEmpty()).map(ChildPending::call).toList();
    if (!open.isEmpty()) {
      children.awaitEnded(open, false);
    }
    List<T> out = new ArrayList<>();
    RuntimeException first = null;
    for (ChildPending<T> c : calls) {
      try {
        out.add(
            c.convert()
                .apply(
                    c.ready()
                        .orElseGet(
                            () ->
                                answering(
                                    c,
                                    () ->
                                        c.onInput().isPresent()
                                            ? children.await(c.call())
                                            : c.call().result(children)))));
      } catch (RuntimeException e) {
        first = first == null ? e : first;
        out.add(null);
      }
    }
    if (first != null) {
      throw first;
    }
    return java.util.Collections.unmodifiableList(out);
  }

  <T> Pending<T> any(List<? extends Pending<T>> pending) {
    int pos = nextPosition.getAsInt();
    List<ChildPending<T>> calls = own(pending);
    if (calls.isEmpty()) {
      throw new FlowsException(
          ErrorCode.INVALID_INPUT,
          "f.any needs at least one pending call",
          "flow " + flow + " call #" + pos,
          "pass the pending results of callAsync, runAsync or startAsync");
    }
    ArrayNode of = JSON.arrayNode();
    calls.forEach(c -> of.add(c.position()));
    String call =
        ANY
            + "("
            + calls.stream().map(c -> "#" + c.position()).collect(Collectors.joining(", "))
            + ")";
    Optional<JsonNode> journaled = memos.of(pos, ANY, call);
    if (journaled.isPresent()) {
      if (!journaled.get().path("of").equals(of)) {
        throw memos.refuse(pos, journaled.get(), call);
      }
      return pending.get(journaled.get().path("winner").asInt());
    }
    int winner = winner(calls);
    ObjectNode memo = BodyMemos.verb(ANY);
    memo.set("of", of);
    memo.put("winner", winner);
    return pending.get(memos.keep(pos, memo).path("winner").asInt());
  }

  /** The first call, in the order given, that had ended when one was seen ending. */
  private <T> int winner(List<ChildPending<T>> calls) {
    for (int i = 0; i < calls.size(); i++) {
      if (calls.get(i).ready().isPresent()) {
        return i;
      }
    }
    List<Children.Awaited> done =
        children.awaitEnded(calls.stream().map(ChildPending::call).toList(), true);
    for (int i = 0; i < calls.size(); i++) {
      if (done.contains(calls.get(i).call())) {
        return i;
      }
    }
    throw new IllegalStateException("no call of " + done + " is among those awaited");
  }

  @SuppressWarnings("unchecked")
  private <T> List<ChildPending<T>> own(List<? extends Pending<T>> pending) {
    List<ChildPending<T>> out = new ArrayList<>();
    for (Pending<T> p : pending) {
      if (!(p instanceof ChildPending<T> c) || c.owner() != this) {
        throw new FlowsException(
            ErrorCode.INVALID_INPUT,
            "a pending result that this body's f did not issue was passed to f.all or f.any",
            "flow " + flow,
            "pass only the results of this body's callAsync, runAsync or startAsync");
      }
      out.add(c);
    }
    return out;
  }

  /** Pending results of any types, as one list. */
  @SuppressWarnings("unchecked")
  static List<Pending<Object>> untyped(Pending<?>... pending) {
    return (List<Pending<Object>>) (List<?>) List.of(pending);
  }
}
