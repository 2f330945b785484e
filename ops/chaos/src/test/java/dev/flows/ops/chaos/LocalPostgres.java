package dev.flows.ops.chaos;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A Postgres server of the chaos run's own (Debian's binaries, run as the {@code postgres} user
 * through {@code runuser}, since Postgres refuses root), listening on loopback only, so that it can
 * be restarted under load. A restart is {@code pg_ctl restart -m immediate}: the postmaster and
 * every backend die at once and the server replays its WAL, as after a crash of the process.
 */
final class LocalPostgres implements AutoCloseable {
  private final ChaosConfig config;
  private final Path dataDir;
  private final int port;

  private LocalPostgres(ChaosConfig config, Path dataDir, int port) {
    this.config = config;
    this.dataDir = dataDir;
    this.port = port;
  }

  static LocalPostgres initAndStart(ChaosConfig config) throws IOException, InterruptedException {
    Path dir = config.workDir().resolve("pgdata");
    Files.createDirectories(config.workDir());
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    LocalPostgres pg = new LocalPostgres(config, dir, port);
    pg.exec(List.of("chown", config.postgresUser(), config.workDir().toString()), false);
    pg.asPostgres(
        List.of(
            config.postgresBin().resolve("initdb").toString(),
            "-D",
            dir.toString(),
            "--auth=trust",
            "-U",
            "postgres",
            "--no-sync"));
    pg.start();
    return pg;
  }

  String adminUrl() {
    return jdbcUrl("postgres");
  }

  String jdbcUrl(String database) {
    return "jdbc:postgresql://127.0.0.1:" + port + "/" + database + "?user=postgres";
  }

  void start() throws IOException, InterruptedException {
    pgCtl("start");
  }

  /** Kills the server the way a crash would and starts it again on the same data. */
  void restart() throws IOException, InterruptedException {
    pgCtl("restart", "-m", "immediate");
  }

  @Override
  public void close() {
    try {
      pgCtl("stop", "-m", "fast");
    } catch (IOException | RuntimeException e) {
      // Best effort on the way out: the data directory is thrown away with the work directory.
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void pgCtl(String verb, String... more) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    cmd.add(config.postgresBin().resolve("pg_ctl").toString());
    cmd.add(verb);
    cmd.addAll(List.of(more));
    cmd.addAll(
        List.of(
            "-D",
            dataDir.toString(),
            "-w",
            "-l",
            dataDir.getParent().resolve("postgres.log").toString()));
    if (!verb.equals("stop")) {
      // Loopback only; fsync off because only processes crash here, never the machine (the page
      // cache survives), while synchronous_commit stays on so that a crash loses no commit.
      cmd.addAll(
          List.of(
              "-o",
              "-c listen_addresses=127.0.0.1 -p "
                  + port
                  + " -k "
                  + dataDir.getParent()
                  + " -c fsync=off -c synchronous_commit=on -c max_connections=200"));
    }
    asPostgres(cmd);
  }

  private void asPostgres(List<String> cmd) throws IOException, InterruptedException {
    List<String> full = new ArrayList<>(List.of("runuser", "-u", config.postgresUser(), "--"));
    full.addAll(cmd);
    exec(full, true);
  }

  private void exec(List<String> cmd, boolean mustSucceed)
      throws IOException, InterruptedException {
    Path log = config.workDir().resolve("pg_ctl.out");
    Process p =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .start();
    if (!p.waitFor(config.processTimeout().toSeconds(), TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IOException(String.join(" ", cmd) + " did not finish in time; see " + log);
    }
    if (mustSucceed && p.exitValue() != 0) {
      throw new IOException(String.join(" ", cmd) + " exited " + p.exitValue() + "; see " + log);
    }
  }
}
