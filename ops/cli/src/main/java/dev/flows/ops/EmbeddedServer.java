package dev.flows.ops;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.json.Jackson;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * The embedded default database: a PostgreSQL server whose data lives under {@code $FLOWS_HOME/pg},
 * started by the first command that needs it and left running for the next ones (a worker in one
 * terminal, a run and a watch in others all share it). Starting is serialized by a file lock, so
 * concurrent commands find the one server instead of racing on the data directory.
 *
 * <p>PostgreSQL refuses to run as root; as root every PostgreSQL program runs under {@code unshare
 * -U} (an unprivileged user namespace), as zonky does.
 */
final class EmbeddedServer {
  static final String USER = "flows";
  static final String DATABASE = "flows";

  /** Serializes starts inside one JVM, where a second FileChannel lock would throw. */
  private static final ReentrantLock JVM_LOCK = new ReentrantLock();

  private static final Duration LOCK_POLL = Duration.ofMillis(100);
  private static final Duration PORT_PROBE_TIMEOUT = Duration.ofSeconds(1);
  private static final int PASSWORD_BYTES = 24;
  private static final int LOG_TAIL_LINES = 8;
  private static final ObjectMapper JSON = Jackson.mapper();

  /** A server that answers on {@code port}. */
  record Running(int port, long pid, Path dataDir, String password) {
    String jdbcUrl() {
      return EmbeddedServer.jdbcUrl(port);
    }
  }

  static String jdbcUrl(int port) {
    return "jdbc:postgresql://localhost:" + port + "/" + DATABASE;
  }

  private final Path home;
  private final OpsConfig config;

  EmbeddedServer(Path flowsHome, OpsConfig config) {
    this.home = flowsHome;
    this.config = config;
  }

  Path pgDir() {
    return home.resolve("pg");
  }

  Path dataDir() {
    return pgDir().resolve("data");
  }

  Path stateFile() {
    return pgDir().resolve("server.json");
  }

  Path logFile() {
    return pgDir().resolve("server.log");
  }

  Path passwordFile() {
    return pgDir().resolve("password");
  }

  boolean initialized() {
    return Files.isRegularFile(dataDir().resolve("PG_VERSION"));
  }

  /** The running server, judged by its own lock file, a live postmaster and an open port. */
  Optional<Running> find() {
    Path pidFile = dataDir().resolve("postmaster.pid");
    List<String> lines;
    try {
      lines = Files.readAllLines(pidFile, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return Optional.empty();
    }
    // postmaster.pid: pid, data dir, start time, port, socket dir, listen address, shmem, status.
    if (lines.size() < 8 || !lines.get(7).trim().equals("ready")) {
      return Optional.empty();
    }
    long pid;
    int port;
    try {
      pid = Long.parseLong(lines.get(0).trim());
      port = Integer.parseInt(lines.get(3).trim());
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
    if (!ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false) || !answers(port)) {
      return Optional.empty();
    }
    return Optional.of(new Running(port, pid, dataDir(), readPassword()));
  }

  /**
   * The running server, started when none is. {@code announce} receives one line when this call
   * started it.
   */
  Running ensureRunning(Consumer<String> announce) {
    Optional<Running> running = find();
    if (running.isPresent()) {
      return running.get();
    }
    return underStartLock(
        () -> {
          Optional<Running> again = find();
          if (again.isPresent()) {
            return again.get();
          }
          Running started = start();
          announce.accept(
              "flows: started the embedded PostgreSQL "
                  + PgBinaries.VERSION
                  + " at "
                  + pgDir()
                  + " (port "
                  + started.port()
                  + "); it keeps running for later commands, `flows db stop` stops it");
          return started;
        });
  }

  /** Stops the server; answers false when none was running. */
  boolean stop() {
    return underStartLock(
        () -> {
          if (find().isEmpty()) {
            return false;
          }
          Path bin = PgBinaries.ensure(home);
          run(
              List.of(
                  bin.resolve("bin/pg_ctl").toString(),
                  "-D",
                  dataDir().toString(),
                  "-m",
                  "fast",
                  "-w",
                  "-t",
                  Long.toString(config.embeddedStopTimeout().toSeconds()),
                  "stop"),
              config.embeddedStopTimeout().plusSeconds(5),
              "pg_ctl stop");
          // server.json stays: the next start takes its port again when it is free, and a worker
          // still connected follows server.json to wherever the server comes back.
          return true;
        });
  }

  private Running start() {
    Path bin = PgBinaries.ensure(home);
    boolean fresh = !initialized();
    if (fresh) {
      initdb(bin);
    }
    int port = choosePort();
    run(
        List.of(
            bin.resolve("bin/pg_ctl").toString(),
            "-D",
            dataDir().toString(),
            "-l",
            logFile().toString(),
            "-w",
            "-t",
            Long.toString(config.embeddedStartTimeout().toSeconds()),
            "-o",
            "-p " + port,
            "start"),
        config.embeddedStartTimeout().plusSeconds(5),
        "pg_ctl start");
    Running r =
        find()
            .orElseThrow(
                () ->
                    unavailable(
                        "the embedded PostgreSQL did not come up: " + logTail(logFile()),
                        logFile().toString()));
    if (fresh) {
      createDatabase(r);
    }
    writeState(r);
    return r;
  }

  private void initdb(Path bin) {
    Path init = pgDir().resolve("data.init");
    PgBinaries.deleteTree(init);
    String password = newPassword();
    Path pwfile = pgDir().resolve("initdb.pw");
    try {
      Files.createDirectories(pgDir());
      writePrivate(pwfile, password);
      run(
          List.of(
              bin.resolve("bin/initdb").toString(),
              "-D",
              init.toString(),
              "-U",
              USER,
              "--auth=scram-sha-256",
              "--pwfile=" + pwfile,
              "-E",
              "UTF8",
              "--no-locale"),
          config.embeddedStartTimeout(),
          "initdb");
      // A real journal: durable commits, reachable from this machine only.
      Files.writeString(
          init.resolve("postgresql.conf"),
          """

          # flows: the embedded default is a real journal (durable) and local-only.
          listen_addresses = 'localhost'
          unix_socket_directories = ''
          fsync = on
          synchronous_commit = on
          full_page_writes = on
          """,
          StandardOpenOption.APPEND);
      writePrivate(passwordFile(), password);
      Files.move(init, dataDir());
    } catch (IOException e) {
      throw unavailable("could not prepare " + dataDir() + ": " + e.getMessage(), "initdb");
    } finally {
      try {
        Files.deleteIfExists(pwfile);
      } catch (IOException ignored) {
        // The password also lives, private, in pg/password; a leftover copy is harmless.
      }
    }
  }

  private void createDatabase(Running r) {
    String admin = "jdbc:postgresql://localhost:" + r.port() + "/postgres";
    try (Connection c = DriverManager.getConnection(admin, USER, r.password());
        Statement st = c.createStatement()) {
      st.execute("CREATE DATABASE " + DATABASE);
    } catch (SQLException e) {
      throw unavailable(
          "could not create database " + DATABASE + ": " + e.getMessage(), "embedded database");
    }
  }

  private int choosePort() {
    Optional<Integer> previous = recordedPort();
    if (previous.isPresent() && free(previous.get())) {
      return previous.get();
    }
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw unavailable("no free local port: " + e.getMessage(), "embedded database");
    }
  }

  /** The port server.json names: the running server's, or the last one's. */
  Optional<Integer> recordedPort() {
    try {
      return Optional.of(JSON.readTree(stateFile().toFile()).path("port").asInt(0))
          .filter(p -> p > 0);
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  private static boolean free(int port) {
    try (ServerSocket s = new ServerSocket(port, 1, java.net.InetAddress.getLoopbackAddress())) {
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static boolean answers(int port) {
    try (Socket s = new Socket()) {
      s.connect(
          new InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), port),
          (int) PORT_PROBE_TIMEOUT.toMillis());
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private void writeState(Running r) {
    ObjectNode state = JSON.createObjectNode();
    state.put("port", r.port());
    state.put("pid", r.pid());
    state.put("dataDir", r.dataDir().toString());
    state.put("jdbcUrl", r.jdbcUrl());
    state.put("user", USER);
    state.put("passwordFile", passwordFile().toString());
    state.put("postgresVersion", PgBinaries.VERSION);
    state.put("startedAt", Instant.now().toString());
    try {
      // Whole or not at all: a worker re-reads this file while it reconnects.
      Path next = pgDir().resolve("server.json.next");
      Files.writeString(next, JSON.writerWithDefaultPrettyPrinter().writeValueAsString(state));
      Files.move(
          next,
          stateFile(),
          java.nio.file.StandardCopyOption.REPLACE_EXISTING,
          java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private String readPassword() {
    try {
      return Files.readString(passwordFile(), StandardCharsets.UTF_8).trim();
    } catch (IOException e) {
      throw unavailable(
          "the embedded database's password file is unreadable: " + e.getMessage(),
          passwordFile().toString());
    }
  }

  private static String newPassword() {
    byte[] b = new byte[PASSWORD_BYTES];
    new SecureRandom().nextBytes(b);
    return HexFormat.of().formatHex(b);
  }

  private static void writePrivate(Path file, String content) throws IOException {
    Files.deleteIfExists(file);
    Files.createFile(
        file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Files.writeString(file, content, StandardCharsets.UTF_8);
  }

  private <T> T underStartLock(java.util.function.Supplier<T> body) {
    try {
      Files.createDirectories(pgDir());
    } catch (IOException e) {
      throw unavailable("cannot create " + pgDir() + ": " + e.getMessage(), pgDir().toString());
    }
    JVM_LOCK.lock();
    try (FileChannel ch =
            FileChannel.open(
                pgDir().resolve("lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock lock = acquire(ch)) {
      return body.get();
    } catch (IOException e) {
      throw unavailable("cannot lock " + pgDir() + ": " + e.getMessage(), pgDir().toString());
    } finally {
      JVM_LOCK.unlock();
    }
  }

  private FileLock acquire(FileChannel ch) throws IOException {
    Instant deadline = Instant.now().plus(config.startLockTimeout());
    while (true) {
      FileLock l = ch.tryLock();
      if (l != null) {
        return l;
      }
      if (Instant.now().isAfter(deadline)) {
        throw unavailable(
            "another flows command has been starting the embedded database for longer than "
                + config.startLockTimeout().toSeconds()
                + " s",
            pgDir().resolve("lock").toString());
      }
      try {
        Thread.sleep(LOCK_POLL);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw unavailable("interrupted while waiting for the start lock", pgDir().toString());
      }
    }
  }

  /** Runs a PostgreSQL program (under {@code unshare -U} as root); refuses on a non-zero exit. */
  private void run(List<String> command, Duration timeout, String what) {
    List<String> full = new ArrayList<>();
    if (isRoot()) {
      if (!onPath("unshare")) {
        throw unavailable(
            "PostgreSQL refuses to run as root and `unshare` is missing",
            "embedded database",
            "install util-linux (for unshare -U), run flows as a normal user, or pass --db URL");
      }
      full.addAll(List.of("unshare", "-U"));
    }
    full.addAll(command);
    Path out = pgDir().resolve(what.replace(' ', '-') + ".out");
    ProcessBuilder pb = new ProcessBuilder(full).redirectErrorStream(true);
    pb.redirectOutput(out.toFile());
    Map<String, String> env = pb.environment();
    env.keySet().removeIf(k -> k.startsWith("PG") || k.startsWith("LC_") || k.equals("LANG"));
    env.put("LC_ALL", "C");
    try {
      Process p = pb.start();
      if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        p.destroyForcibly();
        throw unavailable(
            what + " did not finish within " + timeout.toSeconds() + " s: " + logTail(out),
            pgDir().toString());
      }
      if (p.exitValue() != 0) {
        String tail = logTail(out);
        if (what.equals("pg_ctl start")) {
          tail = tail + " | server log: " + logTail(logFile());
        }
        throw unavailable(
            what + " failed (exit " + p.exitValue() + "): " + tail, pgDir().toString());
      }
    } catch (IOException e) {
      throw unavailable(what + " could not be started: " + e.getMessage(), pgDir().toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw unavailable(what + " was interrupted", pgDir().toString());
    }
  }

  static boolean isRoot() {
    try {
      return ((Number) Files.getAttribute(Path.of("/proc/self"), "unix:uid")).intValue() == 0;
    } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
      return false;
    }
  }

  private static boolean onPath(String program) {
    String path = System.getenv().getOrDefault("PATH", "/usr/bin:/bin");
    for (String dir : path.split(":")) {
      if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, program))) {
        return true;
      }
    }
    return false;
  }

  private static String logTail(Path file) {
    try {
      List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
      return String.join(
          " | ",
          lines.subList(Math.max(0, lines.size() - LOG_TAIL_LINES), lines.size()).stream()
              .map(String::strip)
              .filter(l -> !l.isEmpty())
              .toList());
    } catch (IOException e) {
      return "(no output)";
    }
  }

  private static FlowsException unavailable(String message, String place) {
    return unavailable(
        message,
        place,
        "see the server log under FLOWS_HOME/pg, or pass --db URL to use another server");
  }

  private static FlowsException unavailable(String message, String place, String fix) {
    return new FlowsException(ErrorCode.DATABASE_UNAVAILABLE, message, place, fix);
  }
}
