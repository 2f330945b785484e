package dev.flows.worker.llm;

import dev.flows.kernel.json.Jackson;
import dev.flows.kernel.llm.LlmAnswer;
import dev.flows.kernel.llm.LlmException;
import dev.flows.kernel.llm.LlmMessage;
import dev.flows.kernel.llm.LlmRequest;
import dev.flows.kernel.llm.LlmStream;
import dev.flows.kernel.llm.LlmToolCall;
import dev.flows.kernel.llm.LlmToolSpec;
import dev.flows.kernel.llm.LlmUsage;
import dev.flows.kernel.llm.ModelConfig;
import dev.flows.kernel.llm.ModelPort;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.exception.ContentFilteredException;
import dev.langchain4j.exception.RateLimitException;
import dev.langchain4j.internal.JsonSchemaElementJsonUtils;
import dev.langchain4j.model.anthropic.AnthropicChatModel;
import dev.langchain4j.model.anthropic.AnthropicStreamingChatModel;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.StreamingChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.request.ResponseFormat;
import dev.langchain4j.model.chat.request.ResponseFormatType;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import dev.langchain4j.model.chat.request.json.JsonRawSchema;
import dev.langchain4j.model.chat.request.json.JsonSchema;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.model.openai.OpenAiStreamingChatModel;
import dev.langchain4j.model.output.FinishReason;
import dev.langchain4j.model.output.TokenUsage;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;

/**
 * A declared model served through LangChain4j's own provider clients (OpenAI, Anthropic, and
 * OpenAI's client for Ollama and any OpenAI-compatible server). LangChain4j does not retry here:
 * the engine decides (a rate-limited call waits for the provider's Retry-After, see {@link
 * LlmCalls}).
 */
public final class LangChainModel implements ModelPort {
  private final String provider;
  private final String model;
  private final ChatModel chat;
  private final Optional<StreamingChatModel> streaming;

  public LangChainModel(String provider, String model, ChatModel chat) {
    this(provider, model, chat, Optional.empty());
  }

  /** A model that streams its answers through {@code streaming} when the caller watches them. */
  public LangChainModel(
      String provider, String model, ChatModel chat, Optional<StreamingChatModel> streaming) {
    this.provider = provider;
    this.model = model;
    this.chat = chat;
    this.streaming = streaming;
  }

  /** The model {@code config} declares; its API key read through {@code env} by name. */
  public static LangChainModel of(ModelConfig config, Function<String, Optional<String>> env) {
    String key = config.apiKeyEnv().flatMap(env).orElse("none");
    Duration timeout = config.timeout();
    RetryAfterHttpClient.Builder http = new RetryAfterHttpClient.Builder();
    ChatModel chat =
        switch (config.provider()) {
          case ANTHROPIC -> {
            AnthropicChatModel.AnthropicChatModelBuilder b =
                AnthropicChatModel.builder()
                    .apiKey(key)
                    .modelName(config.model())
                    .timeout(timeout)
                    .maxRetries(0)
                    .httpClientBuilder(http);
            config.baseUrl().ifPresent(u -> b.baseUrl(u.toString()));
            yield b.build();
          }
          case OPENAI, OLLAMA, OPENAI_COMPATIBLE -> {
            OpenAiChatModel.OpenAiChatModelBuilder b =
                OpenAiChatModel.builder()
                    .apiKey(key)
                    .modelName(config.model())
                    .timeout(timeout)
                    .maxRetries(0)
                    .httpClientBuilder(http);
            openAiBaseUrl(config).ifPresent(b::baseUrl);
            yield b.build();
          }
        };
    return new LangChainModel(
        config.provider().wire(), config.model(), chat, Optional.of(streaming(config, key)));
  }

  /**
   * The same model as {@link #of}, streaming (a stream is not retried: LangChain4j has no retries).
   */
  private static StreamingChatModel streaming(ModelConfig config, String key) {
    RetryAfterHttpClient.Builder http = new RetryAfterHttpClient.Builder();
    return switch (config.provider()) {
      case ANTHROPIC -> {
        AnthropicStreamingChatModel.AnthropicStreamingChatModelBuilder b =
            AnthropicStreamingChatModel.builder()
                .apiKey(key)
                .modelName(config.model())
                .timeout(config.timeout())
                .httpClientBuilder(http);
        config.baseUrl().ifPresent(u -> b.baseUrl(u.toString()));
        yield b.build();
      }
      case OPENAI, OLLAMA, OPENAI_COMPATIBLE -> {
        OpenAiStreamingChatModel.OpenAiStreamingChatModelBuilder b =
            OpenAiStreamingChatModel.builder()
                .apiKey(key)
                .modelName(config.model())
                .timeout(config.timeout())
                .httpClientBuilder(http);
        openAiBaseUrl(config).ifPresent(b::baseUrl);
        yield b.build();
      }
    };
  }

  private static Optional<String> openAiBaseUrl(ModelConfig config) {
    return switch (config.provider()) {
      case OLLAMA ->
          Optional.of(
              config
                      .baseUrl()
                      .orElse(ModelConfig.OLLAMA_DEFAULT_URL)
                      .toString()
                      .replaceAll("/$", "")
                  + "/v1");
      default -> config.baseUrl().map(Object::toString);
    };
  }

  @Override
  public String provider() {
    return provider;
  }

  @Override
  public String model() {
    return model;
  }

  @Override
  public LlmAnswer chat(LlmRequest request) {
    ChatResponse r;
    try {
      r = chat.chat(chatRequest(request));
    } catch (RuntimeException e) {
      throw mapped(e);
    }
    return answer(r);
  }

  /**
   * Streamed through LangChain4j's {@link StreamingChatModel} when this model has one: each partial
   * response goes to {@code stream}, the complete response is the answer.
   */
  @Override
  public LlmAnswer chat(LlmRequest request, LlmStream stream) throws InterruptedException {
    if (streaming.isEmpty()) {
      return chat(request);
    }
    CompletableFuture<ChatResponse> done = new CompletableFuture<>();
    ChatResponse r;
    try {
      streaming.get().chat(chatRequest(request), new Handler(stream, done));
      r = done.get();
    } catch (ExecutionException e) {
      throw mapped(
          e.getCause() instanceof RuntimeException cause
              ? cause
              : new IllegalStateException(e.getCause()));
    } catch (RuntimeException e) {
      throw mapped(e);
    }
    return answer(r);
  }

  /** LangChain4j's callbacks into a stream and a future. */
  private record Handler(LlmStream stream, CompletableFuture<ChatResponse> done)
      implements StreamingChatResponseHandler {
    @Override
    public void onPartialResponse(String text) {
      stream.delta(text);
    }

    @Override
    public void onCompleteResponse(ChatResponse r) {
      done.complete(r);
    }

    @Override
    public void onError(Throwable error) {
      done.completeExceptionally(error);
    }
  }

  private static ChatRequest chatRequest(LlmRequest request) {
    ChatRequest.Builder b = ChatRequest.builder().messages(messages(request.messages()));
    request.schema().ifPresent(s -> b.responseFormat(format(s)));
    if (!request.tools().isEmpty()) {
      b.toolSpecifications(request.tools().stream().map(LangChainModel::tool).toList());
    }
    return b.build();
  }

  private LlmAnswer answer(ChatResponse r) {
    String finish = finishReason(r.finishReason());
    String text = r.aiMessage() == null || r.aiMessage().text() == null ? "" : r.aiMessage().text();
    if (finish.equals(LlmAnswer.CONTENT_FILTER)) {
      throw LlmException.refused(
          model,
          "the provider's content filter stopped the answer" + (text.isEmpty() ? "" : ": " + text));
    }
    List<LlmToolCall> calls =
        r.aiMessage() == null || !r.aiMessage().hasToolExecutionRequests()
            ? List.of()
            : r.aiMessage().toolExecutionRequests().stream()
                .map(t -> new LlmToolCall(orEmpty(t.id()), t.name(), orEmpty(t.arguments())))
                .toList();
    return new LlmAnswer(text, calls, usage(r.tokenUsage()), finish);
  }

  private static List<ChatMessage> messages(List<LlmMessage> in) {
    return in.stream()
        .map(
            m ->
                switch (m.role()) {
                  case SYSTEM -> (ChatMessage) SystemMessage.from(m.text());
                  case USER -> UserMessage.from(m.text());
                  case ASSISTANT -> assistant(m);
                  case TOOL ->
                      ToolExecutionResultMessage.from(m.toolCallId(), m.toolName(), m.text());
                })
        .toList();
  }

  private static AiMessage assistant(LlmMessage m) {
    if (m.toolCalls().isEmpty()) {
      return AiMessage.from(m.text());
    }
    List<ToolExecutionRequest> calls =
        m.toolCalls().stream()
            .map(
                c ->
                    ToolExecutionRequest.builder()
                        .id(c.id())
                        .name(c.name())
                        .arguments(c.arguments())
                        .build())
            .toList();
    return m.text().isEmpty() ? AiMessage.from(calls) : AiMessage.from(m.text(), calls);
  }

  /** A tool as LangChain4j sends it: the frozen JSON schema read as its object schema. */
  @SuppressWarnings("unchecked")
  private static ToolSpecification tool(LlmToolSpec t) {
    ToolSpecification.Builder b = ToolSpecification.builder().name(t.name());
    if (!t.description().isEmpty()) {
      b.description(t.description());
    }
    Map<String, Object> schema = Jackson.mapper().convertValue(t.parameters(), Map.class);
    if (JsonSchemaElementJsonUtils.fromMap(schema) instanceof JsonObjectSchema o) {
      b.parameters(o);
    }
    return b.build();
  }

  private static String orEmpty(String s) {
    return s == null ? "" : s;
  }

  private static ResponseFormat format(LlmRequest.ResponseSchema s) {
    String schema;
    try {
      schema = Jackson.mapper().writeValueAsString(s.schema());
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalArgumentException("a response schema is JSON", e);
    }
    return ResponseFormat.builder()
        .type(ResponseFormatType.JSON)
        .jsonSchema(
            JsonSchema.builder().name(s.name()).rootElement(JsonRawSchema.from(schema)).build())
        .build();
  }

  private static LlmUsage usage(TokenUsage u) {
    if (u == null) {
      return new LlmUsage(0, 0);
    }
    return new LlmUsage(orZero(u.inputTokenCount()), orZero(u.outputTokenCount()));
  }

  private static long orZero(Integer i) {
    return i == null ? 0 : i;
  }

  private static String finishReason(FinishReason f) {
    if (f == null) {
      return "other";
    }
    return switch (f) {
      case TOOL_EXECUTION -> "tool_calls";
      default -> f.name().toLowerCase(Locale.ROOT);
    };
  }

  /** The provider's refusal as an {@link LlmException} with its message. */
  private LlmException mapped(RuntimeException e) {
    Optional<RetryAfterHttpClient.Refused> refused = refusedIn(e);
    String message = refused.map(r -> r.getMessage()).orElse(String.valueOf(e.getMessage()));
    if (e instanceof RateLimitException || refused.map(r -> r.statusCode() == 429).orElse(false)) {
      return LlmException.rateLimited(
          model, message, refused.flatMap(RetryAfterHttpClient.Refused::retryAfter), e);
    }
    if (e instanceof ContentFilteredException) {
      return LlmException.refused(model, message);
    }
    return LlmException.error(model, message, e);
  }

  private static Optional<RetryAfterHttpClient.Refused> refusedIn(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof RetryAfterHttpClient.Refused r) {
        return Optional.of(r);
      }
    }
    return Optional.empty();
  }
}
