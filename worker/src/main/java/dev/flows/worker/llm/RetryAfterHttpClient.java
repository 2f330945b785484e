package dev.flows.worker.llm;

import dev.langchain4j.exception.HttpException;
import dev.langchain4j.http.client.HttpClient;
import dev.langchain4j.http.client.HttpClientBuilder;
import dev.langchain4j.http.client.HttpRequest;
import dev.langchain4j.http.client.SuccessfulHttpResponse;
import dev.langchain4j.http.client.sse.ServerSentEventListener;
import dev.langchain4j.http.client.sse.ServerSentEventParser;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * LangChain4j's HTTP transport with one difference: a refused request's {@code Retry-After} header
 * is kept ({@link Refused}), so a rate-limited call waits as long as the provider asked.
 * LangChain4j still builds every request and reads every answer (a streamed one with its own
 * server-sent-events parser).
 */
final class RetryAfterHttpClient implements HttpClient {
  private final java.net.http.HttpClient http;
  private final Duration readTimeout;

  private RetryAfterHttpClient(Duration connectTimeout, Duration readTimeout) {
    this.http = java.net.http.HttpClient.newBuilder().connectTimeout(connectTimeout).build();
    this.readTimeout = readTimeout;
  }

  /** A refused request: the status, the provider's body and its Retry-After, when it sent one. */
  static final class Refused extends HttpException {
    private final transient Optional<Duration> retryAfter;

    Refused(int status, String body, Optional<Duration> retryAfter) {
      super(status, body);
      this.retryAfter = retryAfter;
    }

    Optional<Duration> retryAfter() {
      return retryAfter;
    }
  }

  private java.net.http.HttpRequest jdkRequest(HttpRequest request) {
    java.net.http.HttpRequest.Builder b =
        java.net.http.HttpRequest.newBuilder(URI.create(request.url())).timeout(readTimeout);
    request.headers().forEach((name, values) -> values.forEach(v -> b.header(name, v)));
    String body = request.body() == null ? "" : request.body();
    b.method(
        request.method().name(),
        body.isEmpty()
            ? java.net.http.HttpRequest.BodyPublishers.noBody()
            : java.net.http.HttpRequest.BodyPublishers.ofString(body));
    return b.build();
  }

  @Override
  public SuccessfulHttpResponse execute(HttpRequest request) {
    HttpResponse<String> r;
    try {
      r = http.send(jdkRequest(request), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new RuntimeException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RuntimeException(e);
    }
    Map<String, List<String>> headers = r.headers().map();
    if (r.statusCode() < 200 || r.statusCode() >= 300) {
      throw new Refused(
          r.statusCode(), r.body(), retryAfter(r.headers().firstValue("retry-after")));
    }
    return SuccessfulHttpResponse.builder()
        .statusCode(r.statusCode())
        .headers(headers)
        .body(r.body())
        .build();
  }

  /** Retry-After in seconds (the HTTP-date form is not used by model providers: ignored). */
  static Optional<Duration> retryAfter(Optional<String> header) {
    if (header.isEmpty()) {
      return Optional.empty();
    }
    try {
      double seconds = Double.parseDouble(header.get().trim());
      return seconds < 0
          ? Optional.empty()
          : Optional.of(Duration.ofMillis((long) Math.ceil(seconds * 1000)));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }

  /**
   * A streamed request, read as LangChain4j's JDK client reads it, except that a refusal reaches
   * {@code listener} as a {@link Refused} with its Retry-After.
   */
  @Override
  public void execute(
      HttpRequest request, ServerSentEventParser parser, ServerSentEventListener listener) {
    http.sendAsync(jdkRequest(request), HttpResponse.BodyHandlers.ofInputStream())
        .thenAccept(r -> events(r, parser, listener))
        .exceptionally(
            e -> {
              listener.onError(e.getCause() == null ? e : e.getCause());
              return null;
            });
  }

  private static void events(
      HttpResponse<InputStream> r, ServerSentEventParser parser, ServerSentEventListener listener) {
    try (InputStream body = r.body()) {
      if (r.statusCode() < 200 || r.statusCode() >= 300) {
        String text = new String(body.readAllBytes(), StandardCharsets.UTF_8);
        listener.onError(
            new Refused(r.statusCode(), text, retryAfter(r.headers().firstValue("retry-after"))));
        return;
      }
      listener.onOpen(
          SuccessfulHttpResponse.builder()
              .statusCode(r.statusCode())
              .headers(r.headers().map())
              .build());
      parser.parse(body, listener);
      listener.onClose();
    } catch (IOException | RuntimeException e) {
      listener.onError(e);
    }
  }

  /** The builder LangChain4j's model builders take. */
  static final class Builder implements HttpClientBuilder {
    private Duration connectTimeout = Duration.ofSeconds(10);
    private Duration readTimeout = Duration.ofSeconds(60);

    @Override
    public Duration connectTimeout() {
      return connectTimeout;
    }

    @Override
    public Builder connectTimeout(Duration d) {
      if (d != null) {
        connectTimeout = d;
      }
      return this;
    }

    @Override
    public Duration readTimeout() {
      return readTimeout;
    }

    @Override
    public Builder readTimeout(Duration d) {
      if (d != null) {
        readTimeout = d;
      }
      return this;
    }

    @Override
    public HttpClient build() {
      return new RetryAfterHttpClient(connectTimeout, readTimeout);
    }
  }
}
