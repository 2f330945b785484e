package dev.flows.ops.chaos;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A pg_auto_failover formation of the drill's own (Debian's {@code postgresql-15-auto-failover}): a
 * monitor and two data nodes on loopback ports in the work directory, run as the {@code postgres}
 * user, with synchronous replication (each node in the replication quorum, so the primary's {@code
 * synchronous_standby_names} is {@code ANY 1 (standby)}: a commit returns once the standby has it).
 * The monitor's health checks and the keepers' partition timeout are shortened together, keeping
 * pg_auto_failover's order (a primary cut off demotes itself before the monitor promotes the
 * standby), so a failover takes seconds instead of half a minute.
 */
final class PgAutoFailover implements AutoCloseable {
  /** The name the flows database has on the data nodes. */
  static final String DATABASE = "flows";

  /** A data node: its name in the formation, its port and its data directory. */
  record Node(String name, int port, Path pgdata) {}

  /** Monitor settings: detection in about 2 s, demotion wait 6 s (keepers give up after 3 s). */
  private static final Map<String, String> MONITOR_TIMINGS =
      Map.of(
          "pgautofailover.health_check_period", "1000",
          "pgautofailover.health_check_retry_delay", "500",
          "pgautofailover.health_check_max_retries", "1",
          "pgautofailover.health_check_timeout", "1000",
          "pgautofailover.node_considered_unhealthy_timeout", "2000",
          "pgautofailover.primary_demote_timeout", "6000");

  private static final String NETWORK_PARTITION_TIMEOUT_S = "3";

  private static final java.util.Set<String> WRITABLE = java.util.Set.of("primary", "wait_primary");

  /** Small clusters: three of them share a machine with the workers. */
  private static final String SMALL =
      "shared_buffers = 32MB\nmax_connections = 100\nfsync = off\nmax_wal_size = 256MB\n";

  private final ChaosConfig config;
  private final Path dir;
  private final int monitorPort;
  private final List<Node> nodes = new ArrayList<>();
  private final Map<String, Process> running = new HashMap<>();

  private PgAutoFailover(ChaosConfig config, Path dir, int monitorPort) {
    this.config = config;
    this.dir = dir;
    this.monitorPort = monitorPort;
  }

  /** Creates and starts the monitor, a primary and a synchronous standby; waits until streaming. */
  static PgAutoFailover start(ChaosConfig config) throws Exception {
    Path dir = config.workDir().resolve("ha");
    Files.createDirectories(dir);
    PgAutoFailover ha = new PgAutoFailover(config, dir, freePort());
    try {
      ha.exec(List.of("chown", "-R", config.postgresUser(), config.workDir().toString()));
      Path mon = dir.resolve("monitor");
      ha.initdb(mon);
      ha.asPostgres(
          List.of(
              "pg_autoctl",
              "create",
              "monitor",
              "--pgctl",
              ha.bin("pg_ctl"),
              "--pgdata",
              mon.toString(),
              "--pgport",
              String.valueOf(ha.monitorPort),
              "--hostname",
              "127.0.0.1",
              "--auth",
              "trust",
              "--no-ssl"));
      ha.run("monitor", mon);
      ha.awaitMonitor();
      try (Connection c = ha.monitor();
          Statement st = c.createStatement()) {
        for (var e : MONITOR_TIMINGS.entrySet()) {
          st.execute("ALTER SYSTEM SET " + e.getKey() + " = " + e.getValue());
        }
        st.execute("SELECT pg_reload_conf()");
      }
      for (String name : List.of("node1", "node2")) {
        Node n = new Node(name, freePort(), dir.resolve(name));
        ha.nodes.add(n);
        if (name.equals("node1")) {
          // The standby is a base backup of the primary: it inherits these settings.
          ha.initdb(n.pgdata());
        }
        ha.asPostgres(
            List.of(
                "pg_autoctl",
                "create",
                "postgres",
                "--pgctl",
                ha.bin("pg_ctl"),
                "--pgdata",
                n.pgdata().toString(),
                "--pgport",
                String.valueOf(n.port()),
                "--hostname",
                "127.0.0.1",
                "--listen",
                "127.0.0.1",
                "--auth",
                "trust",
                "--no-ssl",
                "--dbname",
                DATABASE,
                "--monitor",
                ha.monitorUri(),
                "--name",
                name,
                "--replication-quorum",
                "true"));
        ha.asPostgres(
            List.of(
                "pg_autoctl",
                "config",
                "set",
                "--pgdata",
                n.pgdata().toString(),
                "timeout.network_partition_timeout",
                NETWORK_PARTITION_TIMEOUT_S));
        ha.run(name, n.pgdata());
        if (name.equals("node1")) {
          ha.awaitStates(Map.of("node1", "single"), config.processTimeout());
        }
      }
      ha.awaitStable(config.processTimeout());
      return ha;
    } catch (Exception e) {
      ha.close();
      throw e;
    }
  }

  /** The multi-host URL every client of the drill uses: whichever node is the writable primary. */
  String jdbcUrl() {
    StringBuilder hosts = new StringBuilder();
    for (Node n : nodes) {
      hosts.append(hosts.isEmpty() ? "" : ",").append("127.0.0.1:").append(n.port());
    }
    return "jdbc:postgresql://"
        + hosts
        + "/"
        + DATABASE
        + "?user=postgres&targetServerType=primary&hostRecheckSeconds=1&connectTimeout=5";
  }

  List<Node> nodes() {
    return List.copyOf(nodes);
  }

  /**
   * The node the monitor holds for primary (reported and assigned): {@code primary}, or {@code
   * wait_primary} while it takes writes with no standby in sync (after the other node died).
   */
  Optional<Node> primary() throws SQLException {
    Map<String, String[]> states = states();
    for (Node n : nodes) {
      String[] s = states.get(n.name());
      if (s != null && s[0].equals(s[1]) && WRITABLE.contains(s[0])) {
        return Optional.of(n);
      }
    }
    return Optional.empty();
  }

  /**
   * The machine of {@code n} dies: its keeper and its postmaster (with every backend) are killed at
   * once with SIGKILL. Killing the postmaster alone is a restart, which the keeper performs on the
   * same node; the standby is promoted only when the node is gone.
   */
  void kill(Node n) throws Exception {
    Process p = running.remove(n.name());
    List<ProcessHandle> tree = new ArrayList<>();
    if (p != null) {
      tree.add(p.toHandle());
      p.descendants().forEach(tree::add);
    }
    postmaster(n.pgdata()).ifPresent(tree::add);
    tree.forEach(ProcessHandle::destroyForcibly);
    for (ProcessHandle h : tree) {
      h.onExit().get(config.processTimeout().toSeconds(), TimeUnit.SECONDS);
    }
  }

  /** Starts {@code n}'s keeper again: it rejoins the formation (as a standby, after a rewind). */
  void restart(Node n) throws IOException {
    run(n.name(), n.pgdata());
  }

  /** A planned switchover: the monitor demotes the primary and promotes the standby. */
  void switchover() throws Exception {
    asPostgres(
        List.of(
            "pg_autoctl", "perform", "switchover", "--pgdata", dir.resolve("monitor").toString()));
  }

  /** Waits until the formation has one primary and one synchronous standby again. */
  void awaitStable(Duration timeout) throws Exception {
    awaitStates(Map.of(), timeout);
  }

  private void awaitStates(Map<String, String> wanted, Duration timeout) throws Exception {
    long until = System.nanoTime() + timeout.toNanos();
    Map<String, String[]> last = Map.of();
    while (System.nanoTime() < until) {
      try {
        last = states();
        if (wanted.isEmpty() ? stable(last) : reached(last, wanted)) {
          return;
        }
      } catch (SQLException e) {
        // The monitor is starting.
      }
      ChaosLoad.sleepQuietly(Duration.ofMillis(200));
    }
    StringBuilder seen = new StringBuilder();
    last.forEach(
        (k, v) -> seen.append(k).append('=').append(v[0]).append('/').append(v[1]).append(' '));
    throw new IOException("the formation did not settle in " + timeout + ": " + seen);
  }

  private static boolean reached(Map<String, String[]> states, Map<String, String> wanted) {
    return wanted.entrySet().stream()
        .allMatch(
            w -> {
              String[] s = states.get(w.getKey());
              return s != null && s[0].equals(w.getValue()) && s[1].equals(w.getValue());
            });
  }

  private boolean stable(Map<String, String[]> states) {
    int primaries = 0;
    int secondaries = 0;
    for (String[] s : states.values()) {
      if (!s[0].equals(s[1])) {
        return false;
      }
      primaries += s[0].equals("primary") ? 1 : 0;
      secondaries += s[0].equals("secondary") ? 1 : 0;
    }
    return primaries == 1 && secondaries == nodes.size() - 1;
  }

  /** Node name to {reported state, assigned state}, as the monitor holds them. */
  private Map<String, String[]> states() throws SQLException {
    Map<String, String[]> out = new LinkedHashMap<>();
    try (Connection c = monitor();
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT nodename, reportedstate::text, goalstate::text FROM pgautofailover.node")) {
      while (rs.next()) {
        out.put(rs.getString(1), new String[] {rs.getString(2), rs.getString(3)});
      }
    }
    return out;
  }

  private Connection monitor() throws SQLException {
    return DriverManager.getConnection(
        "jdbc:postgresql://127.0.0.1:"
            + monitorPort
            + "/pg_auto_failover?user=postgres&connectTimeout=5");
  }

  private String monitorUri() {
    return "postgres://autoctl_node@127.0.0.1:" + monitorPort + "/pg_auto_failover?sslmode=disable";
  }

  private void awaitMonitor() throws Exception {
    long until = System.nanoTime() + config.processTimeout().toNanos();
    while (true) {
      try (Connection c = monitor()) {
        return;
      } catch (SQLException e) {
        if (System.nanoTime() > until) {
          throw e;
        }
        ChaosLoad.sleepQuietly(Duration.ofMillis(200));
      }
    }
  }

  /** Kills every process of the formation (keepers, postmasters, backends); never throws. */
  @Override
  public void close() {
    List<ProcessHandle> tree = new ArrayList<>();
    for (Process p : running.values()) {
      tree.add(p.toHandle());
      p.descendants().forEach(tree::add);
    }
    running.clear();
    List<Path> dirs = new ArrayList<>(List.of(dir.resolve("monitor")));
    nodes.forEach(n -> dirs.add(n.pgdata()));
    dirs.forEach(d -> postmaster(d).ifPresent(tree::add));
    tree.forEach(ProcessHandle::destroyForcibly);
    for (ProcessHandle h : tree) {
      try {
        h.onExit().get(10, TimeUnit.SECONDS);
      } catch (Exception e) {
        // Best effort on the way out.
      }
    }
    // A postmaster whose supervisor died between the two looks above.
    dirs.forEach(d -> postmaster(d).ifPresent(ProcessHandle::destroyForcibly));
  }

  /** The live postmaster of {@code pgdata}, from its postmaster.pid and checked in /proc. */
  private static Optional<ProcessHandle> postmaster(Path pgdata) {
    try {
      List<String> lines = Files.readAllLines(pgdata.resolve("postmaster.pid"));
      long pid = Long.parseLong(lines.getFirst().strip());
      String cmd =
          new String(
              Files.readAllBytes(Path.of("/proc", String.valueOf(pid), "cmdline")),
              StandardCharsets.UTF_8);
      return cmd.contains(pgdata.toString()) ? ProcessHandle.of(pid) : Optional.empty();
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  private void initdb(Path pgdata) throws Exception {
    asPostgres(
        List.of(
            bin("initdb"), "-D", pgdata.toString(), "--auth=trust", "-U", "postgres", "--no-sync"));
    Files.writeString(
        pgdata.resolve("postgresql.conf"), SMALL, java.nio.file.StandardOpenOption.APPEND);
  }

  private void run(String name, Path pgdata) throws IOException {
    Path log = dir.resolve(name + ".log");
    Process p =
        new ProcessBuilder(
                asPostgresCommand(List.of("pg_autoctl", "run", "--pgdata", pgdata.toString())))
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .start();
    running.put(name, p);
  }

  private String bin(String tool) {
    return config.postgresBin().resolve(tool).toString();
  }

  private List<String> asPostgresCommand(List<String> cmd) {
    // pg_autoctl keeps its configuration and state under XDG directories: the work directory's.
    List<String> full =
        new ArrayList<>(
            List.of(
                "runuser",
                "-u",
                config.postgresUser(),
                "--",
                "env",
                "XDG_CONFIG_HOME=" + dir.resolve("config"),
                "XDG_DATA_HOME=" + dir.resolve("data"),
                "XDG_RUNTIME_DIR=" + dir.resolve("run"),
                "PG_CONFIG=" + bin("pg_config")));
    full.addAll(cmd);
    return full;
  }

  private void asPostgres(List<String> cmd) throws Exception {
    exec(asPostgresCommand(cmd));
  }

  private void exec(List<String> cmd) throws Exception {
    Path log = dir.resolve("commands.log");
    Process p =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .start();
    if (!p.waitFor(config.processTimeout().toSeconds(), TimeUnit.SECONDS)) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
      throw new IOException(String.join(" ", cmd) + " did not finish in time; see " + log);
    }
    if (p.exitValue() != 0) {
      throw new IOException(String.join(" ", cmd) + " exited " + p.exitValue() + "; see " + log);
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
