package dev.flows.ops;

import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.journal.PayloadLimits;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpTester;
import org.eclipse.jetty.server.ForwardedRequestCustomizer;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.LocalConnector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * The console served in-process, without a socket of its own: a host's web server (a service's
 * servlet container) hands it each request under the base path and writes back the answer. It reads
 * and acts on the database of {@code dataSource} through a journal on that pool, which the caller
 * keeps owning; the token and base path rules are those of {@link Console}.
 */
public final class ConsoleMount implements AutoCloseable {
  /** One answer: its status, its headers in order, its body. */
  public record Exchange(int status, List<Map.Entry<String, String>> headers, byte[] body) {}

  /**
   * The payload limits the console's journal holds for the signals, answers and reruns it sends:
   * those of the service's own journal, so one bound holds for every writer. Each is 4096 to
   * 268435455 bytes, else {@code config_invalid} naming it.
   */
  public record Limits(long maxRunInputBytes, long maxSignalBytes, long maxAnswerBytes) {
    /** The defaults, 4 MiB each. */
    public static final Limits DEFAULTS =
        new Limits(
            PayloadLimits.DEFAULT_MAX_BYTES,
            PayloadLimits.DEFAULT_MAX_BYTES,
            PayloadLimits.DEFAULT_MAX_BYTES);

    PayloadLimits journals() {
      return PayloadLimits.DEFAULTS
          .withMaxRunInputBytes(maxRunInputBytes)
          .withMaxSignalBytes(maxSignalBytes)
          .withMaxAnswerBytes(maxAnswerBytes);
    }
  }

  /** How long one request may take before the host is answered 503. */
  private static final long TIMEOUT_SECONDS = 30;

  /**
   * Headers the host must not pass on: the hop-by-hop ones (this mount frames the message itself)
   * and those that say who the client is, which only the host can tell.
   */
  private static final Set<String> DROPPED =
      Set.of(
          "connection",
          "content-length",
          "transfer-encoding",
          "keep-alive",
          "upgrade",
          "te",
          "trailer",
          "forwarded",
          "x-forwarded-for",
          "x-forwarded-host",
          "x-forwarded-proto",
          "x-forwarded-port",
          "x-forwarded-server",
          "x-forwarded-prefix",
          "x-proxied-https",
          "proxy-client-ip",
          "proxy-ssl-id",
          "proxy-auth-cert");

  private final Server server;
  private final LocalConnector connector;
  private final PostgresJournal journal;

  private ConsoleMount(Server server, LocalConnector connector, PostgresJournal journal) {
    this.server = server;
    this.connector = connector;
    this.journal = journal;
  }

  /**
   * Starts a console over the flows database of {@code dataSource}, served under {@code basePath}
   * (e.g. {@code /flows}) of its host, read-only without a {@code token}, its journal at the
   * default payload limits.
   */
  public static ConsoleMount start(DataSource dataSource, Optional<String> token, String basePath) {
    return start(dataSource, token, basePath, Limits.DEFAULTS);
  }

  /**
   * As {@link #start(DataSource, Optional, String)}, its journal refusing a signal, answer or rerun
   * past {@code limits} ({@code payload_too_large}, nothing written).
   */
  public static ConsoleMount start(
      DataSource dataSource, Optional<String> token, String basePath, Limits limits) {
    Console.Settings settings =
        new Console.Settings(Console.DEFAULT_BIND, 0, token, basePath(basePath, "basePath"));
    PayloadLimits bounds = limits.journals();
    PostgresJournal journal =
        PostgresJournal.listeningOn(
            dataSource, JournalStoreConfig.forUrl(urlOf(dataSource)).withPayloadLimits(bounds));
    QueuedThreadPool threads = new QueuedThreadPool(16, 2);
    threads.setName("flows-console");
    threads.setDaemon(true);
    Server server = new Server(threads);
    HttpConfiguration http = new HttpConfiguration();
    http.setSendServerVersion(false);
    // The host tells who the client is (X-Forwarded-For, set by the host alone): the actor of an
    // action names it.
    http.addCustomizer(new ForwardedRequestCustomizer());
    LocalConnector connector = new LocalConnector(server, new HttpConnectionFactory(http));
    server.addConnector(connector);
    server.setHandler(ConsoleBasePath.handler(journal, dataSource, settings));
    try {
      server.start();
    } catch (Exception e) {
      journal.close();
      throw new FlowsException(
          ErrorCode.INTERNAL_ERROR,
          "the console cannot start: " + Database.oneLine(String.valueOf(e.getMessage())),
          "the console",
          "see the service's log");
    }
    return new ConsoleMount(server, connector, journal);
  }

  /**
   * Serves one request: {@code target} is the path and query as the client sent them (the base path
   * included), {@code headers} the client's, {@code remoteAddress} the client's address as the host
   * knows it.
   */
  public Exchange serve(
      String remoteAddress,
      String method,
      String target,
      List<Map.Entry<String, String>> headers,
      byte[] body) {
    HttpTester.Request request = HttpTester.newRequest();
    request.setMethod(method);
    request.setURI(target);
    request.setVersion("HTTP/1.1");
    for (Map.Entry<String, String> h : headers) {
      String name = h.getKey().toLowerCase(Locale.ROOT);
      if (name.equals("host")) {
        // One Host, the client's: the console compares a POST's Origin with it.
        request.put(HttpHeader.HOST, h.getValue());
      } else if (!DROPPED.contains(name)) {
        request.add(h.getKey(), h.getValue());
      }
    }
    request.put("X-Forwarded-For", remoteAddress);
    request.put("Connection", "close");
    request.put("Content-Length", Integer.toString(body.length));
    request.setContent(body);
    HttpTester.Response response;
    try {
      ByteBuffer raw =
          connector.getResponse(
              request.generate(), method.equals("HEAD"), TIMEOUT_SECONDS, TimeUnit.SECONDS);
      response =
          raw == null
              ? null
              : method.equals("HEAD")
                  ? HttpTester.parseHeadResponse(raw)
                  : HttpTester.parseResponse(raw);
    } catch (Exception e) {
      response = null;
    }
    if (response == null) {
      byte[] text =
          ("error internal_error: the console did not answer within "
                  + TIMEOUT_SECONDS
                  + " s (at the console) fix: retry; see the service's log")
              .getBytes(java.nio.charset.StandardCharsets.UTF_8);
      return new Exchange(503, List.of(Map.entry("Content-Type", "text/plain")), text);
    }
    List<Map.Entry<String, String>> answered = new ArrayList<>();
    for (HttpField f : response) {
      String name = f.getName().toLowerCase(Locale.ROOT);
      if (!name.equals("content-length")
          && !name.equals("transfer-encoding")
          && !name.equals("connection")
          && !name.equals("date")) {
        answered.add(Map.entry(f.getName(), f.getValue()));
      }
    }
    byte[] content = response.getContentBytes();
    return new Exchange(
        response.getStatus(), List.copyOf(answered), content == null ? new byte[0] : content);
  }

  /**
   * {@code path} as a mount's base path ({@code flows/} reads as {@code /flows}); the root or a
   * path that is not one is refused {@code config_invalid} at {@code place}.
   */
  public static String basePath(String path, String place) {
    String p = ConsoleBasePath.normalize(path, place);
    if (p.isEmpty()) {
      throw new FlowsException(
          ErrorCode.CONFIG_INVALID,
          "the console cannot be mounted at the root of its host",
          place,
          "give it a path of its own, e.g. /flows");
    }
    return p;
  }

  private static String urlOf(DataSource dataSource) {
    try (Connection c = dataSource.getConnection()) {
      return c.getMetaData().getURL();
    } catch (SQLException e) {
      throw Database.translate(e, "the console's database");
    }
  }

  @Override
  public void close() {
    try {
      server.stop();
    } catch (Exception e) {
      // Best effort, as Console's: nothing listens, what is left are idle threads.
    }
    journal.close();
  }
}
