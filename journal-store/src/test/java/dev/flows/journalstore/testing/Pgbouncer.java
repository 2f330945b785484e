package dev.flows.journalstore.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Debian's pgbouncer ({@code /usr/sbin/pgbouncer}, installed by {@code .ci/run}) on a free port in
 * front of a test database's server, in session or transaction pool mode, with trust
 * authentication. pgbouncer refuses to run as root: as root it runs under {@code unshare -U}, as
 * embedded Postgres does here. Close it to stop it.
 */
public final class Pgbouncer implements AutoCloseable {
  public static final Path BINARY = Path.of("/usr/sbin/pgbouncer");

  /** pgbouncer's {@code pool_mode}. */
  public enum Mode {
    SESSION,
    TRANSACTION
  }

  private final Path dir;
  private final int port;
  private final URI target;
  private final Path log;
  private Process process;

  private Pgbouncer(Path dir, int port, URI target) {
    this.dir = dir;
    this.port = port;
    this.target = target;
    this.log = dir.resolve("pgbouncer.log");
  }

  /** Starts one in front of {@code db}'s server (any database on it), answering when it listens. */
  public static Pgbouncer start(TestDatabase.Fresh db, Mode mode) {
    if (!Files.isExecutable(BINARY)) {
      throw new IllegalStateException(BINARY + " is missing: apt-get install -y pgbouncer");
    }
    try {
      Path dir = Files.createTempDirectory("flows-pgbouncer");
      // Read by pgbouncer, which as root runs unmapped (as nobody) in a user namespace.
      Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
      Pgbouncer b =
          new Pgbouncer(dir, freePort(), URI.create(db.jdbcUrl().substring("jdbc:".length())));
      b.launch(mode);
      return b;
    } catch (IOException e) {
      throw new UncheckedIOException("pgbouncer did not start", e);
    }
  }

  /** Stops it and starts it again on the same port in {@code mode} (its clients are cut off). */
  public void restart(Mode mode) {
    stop();
    try {
      launch(mode);
    } catch (IOException e) {
      throw new UncheckedIOException("pgbouncer did not start again", e);
    }
  }

  private void launch(Mode mode) throws IOException {
    Path users = Files.writeString(dir.resolve("users.txt"), "\"postgres\" \"\"\n");
    Path ini =
        Files.writeString(
            dir.resolve("pgbouncer.ini"),
            String.join(
                "\n",
                "[databases]",
                "* = host=" + target.getHost() + " port=" + target.getPort(),
                "[pgbouncer]",
                "listen_addr = 127.0.0.1",
                "listen_port = " + port,
                "unix_socket_dir =",
                "auth_type = trust",
                "auth_file = " + users,
                "pool_mode = " + mode.name().toLowerCase(Locale.ROOT),
                "max_client_conn = 200",
                "default_pool_size = 40",
                // pgjdbc sends it at connect; pgbouncer refuses parameters it does not know.
                "ignore_startup_parameters = extra_float_digits",
                ""));
    for (Path p : List.of(users, ini)) {
      Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rw-r--r--"));
    }
    List<String> cmd = new ArrayList<>();
    if ("root".equals(System.getProperty("user.name"))) {
      cmd.addAll(List.of("unshare", "-U"));
    }
    cmd.add(BINARY.toString());
    cmd.add(ini.toString());
    process =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .start();
    awaitListening(Duration.ofSeconds(30));
  }

  /** {@code db}'s JDBC URL with pgbouncer's port in place of the server's. */
  public String jdbcUrl(TestDatabase.Fresh db) {
    return db.jdbcUrl()
        .replace(
            "//" + target.getHost() + ":" + target.getPort() + "/", "//127.0.0.1:" + port + "/");
  }

  public int port() {
    return port;
  }

  /** What pgbouncer logged so far (for a failing assertion's message). */
  public String log() {
    try {
      return Files.readString(log);
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  private void awaitListening(Duration timeout) {
    long until = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < until) {
      if (!process.isAlive()) {
        throw new IllegalStateException("pgbouncer exited: " + log());
      }
      try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
        return;
      } catch (IOException notYet) {
        try {
          Thread.sleep(20);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted waiting for pgbouncer", e);
        }
      }
    }
    throw new IllegalStateException("pgbouncer not listening on " + port + ": " + log());
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  private void stop() {
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    stop();
    try (var files = Files.list(dir)) {
      for (Path f : files.toList()) {
        Files.deleteIfExists(f);
      }
      Files.deleteIfExists(dir);
    } catch (IOException e) {
      // A temp directory left behind is harmless.
    }
  }
}
