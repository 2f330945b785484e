package dev.flows.testing;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.sdk.ModelClient;
import dev.flows.sdk.TokenUsage;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * A model written in the test ({@link FlowsTestEnvironment#model(String)}): flows reach it as
 * {@code f.llm(name)} (their header declaring {@code name}) and {@code llm} steps. It answers from
 * a script, in order ({@link #answering(String...)}, {@link #refusing(String)}, {@link
 * #failing(String)}), then from {@link #answeringWith(Function)} when the script is spent; with
 * neither left the call fails {@code llm_error} naming this model. Every request is recorded
 * ({@link #calls()}), so a test shows a replay answered from the journal: the model was asked once.
 */
public final class FakeModel implements ModelClient {
  /** The rough tokens a text counts for in the usage answered: one per four characters. */
  static final int CHARS_PER_TOKEN = 4;

  private final String name;
  private final Deque<Function<List<Message>, Answer>> script = new ArrayDeque<>();
  private final List<List<Message>> calls = new ArrayList<>();
  private Optional<Function<List<Message>, String>> otherwise = Optional.empty();

  FakeModel(String name) {
    this.name = name;
  }

  /** The model's name, as flows name it in {@code f.llm(name)}. */
  public String name() {
    return name;
  }

  /** Answers the next calls with these texts, one each, in order. */
  public synchronized FakeModel answering(String... texts) {
    for (String text : texts) {
      script.add(messages -> answer(messages, text, "stop"));
    }
    return this;
  }

  /** Answers every call past the script with what {@code answer} makes of its messages. */
  public synchronized FakeModel answeringWith(Function<List<Message>, String> answer) {
    this.otherwise = Optional.of(answer);
    return this;
  }

  /** The next call is stopped by a content filter: the flow's call fails {@code llm_refused}. */
  public synchronized FakeModel refusing(String text) {
    script.add(messages -> answer(messages, text, "content_filter"));
    return this;
  }

  /** The next call fails as a provider's error would: {@code llm_error} with {@code message}. */
  public synchronized FakeModel failing(String message) {
    script.add(
        messages -> {
          throw new IllegalStateException(message);
        });
    return this;
  }

  /** The messages of every call the model was asked, in order. */
  public synchronized List<List<Message>> calls() {
    return List.copyOf(calls);
  }

  @Override
  public synchronized Answer chat(List<Message> messages, Optional<JsonNode> responseSchema) {
    calls.add(List.copyOf(messages));
    Function<List<Message>, Answer> next = script.poll();
    if (next != null) {
      return next.apply(messages);
    }
    return otherwise
        .map(f -> answer(messages, f.apply(messages), "stop"))
        .orElseThrow(
            () ->
                new IllegalStateException(
                    "the fake model "
                        + name
                        + " has no answer left for call "
                        + calls.size()
                        + " (give more with answering(...) or answeringWith(...))"));
  }

  @Override
  public String provider() {
    return "flows-testing";
  }

  @Override
  public String model() {
    return name;
  }

  private static Answer answer(List<Message> messages, String text, String finishReason) {
    long in = messages.stream().mapToLong(m -> tokens(m.text())).sum();
    return new Answer(text, new TokenUsage(in, tokens(text)), finishReason);
  }

  private static long tokens(String text) {
    return (text.length() + CHARS_PER_TOKEN - 1) / CHARS_PER_TOKEN;
  }
}
