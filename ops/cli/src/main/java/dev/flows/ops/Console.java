package dev.flows.ops;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.journal.Journal;
import java.net.URI;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * The web console: the run list, each run's detail and the operator actions, served by an embedded
 * Jetty over a journal and the database its SQL views are in. {@code flows ui} starts one; a
 * service starts its own with {@link #start}. Without a token it is read-only; with one, every
 * action is a POST that must carry it ({@code Authorization: Bearer TOKEN} or a form field {@code
 * token}).
 */
public final class Console implements AutoCloseable {
  /** The environment variable {@code flows ui} reads the operator token from. */
  public static final String TOKEN_VARIABLE = "FLOWS_UI_TOKEN";

  public static final String DEFAULT_BIND = "127.0.0.1";
  public static final int DEFAULT_PORT = 7070;

  /** Connections the console holds at most (pages, their refreshes, actions). */
  private static final int POOL_SIZE = 4;

  /**
   * Where and how to serve: {@code bind} an address ({@code 127.0.0.1}: this machine only), {@code
   * port} 0 for a free one, {@code token} the operator token (empty: read-only), {@code basePath}
   * the path it is served under ({@code ""}: the root; {@code /flows}: every page, form, redirect
   * and asset under {@code /flows/}).
   */
  public record Settings(String bind, int port, Optional<String> token, String basePath) {
    public Settings {
      Objects.requireNonNull(bind, "bind");
      Objects.requireNonNull(token, "token");
      basePath = ConsoleBasePath.normalize(basePath);
      if (port < 0 || port > 65_535) {
        throw new FlowsException(
            ErrorCode.CONFIG_INVALID,
            "port " + port + " is out of range",
            "--port",
            "pass a port from 0 (a free one) to 65535");
      }
      token = token.filter(t -> !t.isBlank());
    }

    public Settings(String bind, int port, Optional<String> token) {
      this(bind, port, token, "");
    }

    /** These settings served under {@code basePath}, e.g. {@code /flows}. */
    public Settings withBasePath(String basePath) {
      return new Settings(bind, port, token, basePath);
    }

    public static Settings localhost(int port, Optional<String> token) {
      return new Settings(DEFAULT_BIND, port, token);
    }

    @Override
    public String toString() {
      // Never the token itself.
      return "Settings[bind="
          + bind
          + ", port="
          + port
          + ", token="
          + token.isPresent()
          + ", basePath="
          + basePath
          + "]";
    }
  }

  private final Server server;
  private final URI uri;

  private final HikariDataSource pool;

  private Console(Server server, URI uri, HikariDataSource pool) {
    this.server = server;
    this.uri = uri;
    this.pool = pool;
  }

  /**
   * The console's own few connections over {@code dataSource}: a page runs several statements and
   * the list refreshes itself every 2 s, and opening a connection per page costs more than the
   * statements.
   */
  private static HikariDataSource pool(DataSource dataSource) {
    HikariConfig h = new HikariConfig();
    h.setDataSource(dataSource);
    h.setPoolName("flows-ui");
    h.setMaximumPoolSize(POOL_SIZE);
    h.setMinimumIdle(0);
    h.setIdleTimeout(Duration.ofMinutes(1).toMillis());
    h.setInitializationFailTimeout(-1);
    return new HikariDataSource(h);
  }

  /**
   * Starts a console over {@code journal} (reads and operator actions) and {@code dataSource} (the
   * database of the journal, for the SQL views). The caller keeps owning both.
   */
  public static Console start(Journal journal, DataSource dataSource, Settings settings) {
    QueuedThreadPool threads = new QueuedThreadPool(16, 2);
    threads.setName("flows-ui");
    threads.setDaemon(true);
    Server server = new Server(threads);
    ServerConnector connector = new ServerConnector(server, 1, 1);
    connector.setHost(settings.bind());
    connector.setPort(settings.port());
    server.addConnector(connector);
    HikariDataSource pool = pool(dataSource);
    server.setHandler(ConsoleBasePath.handler(journal, pool, settings));
    server.setStopTimeout(2_000);
    try {
      server.start();
    } catch (Exception e) {
      stopQuietly(server);
      pool.close();
      throw new FlowsException(
          ErrorCode.CONFIG_INVALID,
          "cannot serve on "
              + settings.bind()
              + ":"
              + settings.port()
              + ": "
              + Database.oneLine(String.valueOf(e.getMessage())),
          "--bind/--port",
          "pick a free port (--port 0 picks one) and an address of this machine");
    }
    String host = settings.bind().contains(":") ? "[" + settings.bind() + "]" : settings.bind();
    return new Console(
        server,
        URI.create("http://" + host + ":" + connector.getLocalPort() + settings.basePath() + "/"),
        pool);
  }

  /** The address it serves, e.g. {@code http://127.0.0.1:7070/} or {@code .../flows/}. */
  public URI uri() {
    return uri;
  }

  /** Blocks until the server stops. */
  public void join() throws InterruptedException {
    server.join();
  }

  @Override
  public void close() {
    stopQuietly(server);
    pool.close();
  }

  private static void stopQuietly(Server server) {
    try {
      server.stop();
    } catch (Exception e) {
      // Stopping is best effort: the connector is closed first, what is left are idle threads.
    }
  }
}
