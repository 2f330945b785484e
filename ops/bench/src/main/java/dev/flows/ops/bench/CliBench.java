package dev.flows.ops.bench;

import static dev.flows.ops.bench.Bench.log;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/**
 * {@code cli}: the wall time of short {@code ./flows} commands, each started as a user starts it
 * (the launcher, a JVM per call), against a bare {@code java -version} of the same JDK in the same
 * run. The calls go round by round (one of each command per round) so load from elsewhere falls on
 * all of them alike. The database is a fresh one on the bench's Postgres; the runs read are made by
 * the CLI first, unmeasured: a body with four child runs (one per {@code f.command}) and a step.
 */
record CliBench(Bench.Plan plan, Pg pg, Report report) implements Section {
  /** Calls of each command. */
  static final int CALLS = 10;

  /** A whole call may take this long before the section gives up on it. */
  private static final long CALL_TIMEOUT_SECONDS = 600;

  private static final ObjectMapper JSON = new ObjectMapper();

  private static final String FLOW =
      """
      import com.fasterxml.jackson.databind.JsonNode;
      import dev.flows.sdk.*;

      public class BenchCli implements Flow<JsonNode, JsonNode> {
        public FlowHeader header() {
          return FlowHeader.named("bench-cli").version("1").build();
        }

        public JsonNode run(Ctx f, JsonNode input) {
          for (int i = 0; i < 4; i++) {
            f.command("true").call();
          }
          return f.step("answer", () -> input);
        }
      }
      """;

  /** One command's calls: wall times, and the exit codes they ended with. */
  record Timed(String command, Stats wall, Set<Integer> exits) {}

  static int calls(String mode) {
    return mode.equals("smoke") ? 0 : CALLS;
  }

  @Override
  public void run() throws Exception {
    int calls = calls(plan.mode());
    Path launcher = Path.of("flows").toAbsolutePath();
    if (calls == 0 || !Files.isExecutable(launcher)) {
      return;
    }
    log("cli: " + calls + " calls of each command");
    String url = pg.fresh("bench_cli", true);
    Path dir = Files.createTempDirectory("flows-bench-cli");
    Path flow = Files.writeString(dir.resolve("bench_cli.flow.java"), FLOW);
    Map<String, String> env = new LinkedHashMap<>();
    env.put("FLOWS_DATABASE_URL", url);
    env.put("FLOWS_HOME", dir.resolve("home").toString());
    // Unmeasured: builds the jar when it is stale, writes the class-data archives, makes the runs.
    String ended = runId(call(env, launcher, "--json", "run", flow.toString(), "--key", "ended"));
    String waiting =
        runId(call(env, launcher, "--json", "run", flow.toString(), "--key", "open", "--detach"));
    String java = call(Map.of(), Path.of("bin/find-jdk").toAbsolutePath()).out().strip();
    Map<String, List<String>> commands = new LinkedHashMap<>();
    commands.put("java -version (bare JVM)", List.of(java + "/bin/java", "-version"));
    commands.put("runs show", List.of(launcher.toString(), "runs", "show", ended));
    commands.put("runs list", List.of(launcher.toString(), "runs", "list"));
    commands.put(
        "runs signal", List.of(launcher.toString(), "runs", "signal", waiting, "go", "{}"));
    commands.put(
        "run --key (ended run)",
        List.of(launcher.toString(), "run", flow.toString(), "--key", "ended"));
    commands.values().forEach(c -> call(env, c)); // warm-up: the archives of each command
    report.cli(measure(env, commands, calls));
  }

  private static List<Timed> measure(
      Map<String, String> env, Map<String, List<String>> commands, int calls) {
    Map<String, List<Long>> walls = new LinkedHashMap<>();
    Map<String, Set<Integer>> exits = new LinkedHashMap<>();
    for (int round = 0; round < calls; round++) {
      for (Map.Entry<String, List<String>> c : commands.entrySet()) {
        long began = System.nanoTime();
        Ran r = call(env, c.getValue());
        walls.computeIfAbsent(c.getKey(), k -> new ArrayList<>()).add(System.nanoTime() - began);
        exits.computeIfAbsent(c.getKey(), k -> new TreeSet<>()).add(r.exit());
      }
    }
    List<Timed> out = new ArrayList<>();
    walls.forEach((k, w) -> out.add(new Timed(k, Stats.of(w), exits.get(k))));
    return out;
  }

  private static String runId(Ran r) {
    try {
      JsonNode first = JSON.readTree(r.out().lines().findFirst().orElse("{}"));
      String id = first.path("run").asText("");
      if (id.isEmpty()) {
        throw new IllegalStateException("flows run answered no run: " + r.out() + r.err());
      }
      return id;
    } catch (IOException e) {
      throw new IllegalStateException("flows run answered no JSON: " + r.out() + r.err(), e);
    }
  }

  /** What one call printed and how it ended. */
  record Ran(int exit, String out, String err) {}

  private static Ran call(Map<String, String> env, Path program, String... args) {
    List<String> cmd = new ArrayList<>();
    cmd.add(program.toString());
    cmd.addAll(List.of(args));
    return call(env, cmd);
  }

  private static Ran call(Map<String, String> env, List<String> cmd) {
    try {
      Path out = Files.createTempFile("flows-bench-cli", ".out");
      Path err = Files.createTempFile("flows-bench-cli", ".err");
      try {
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(out.toFile());
        pb.redirectError(err.toFile()).environment().putAll(env);
        Process p = pb.start();
        if (!p.waitFor(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
          p.destroyForcibly();
          throw new IllegalStateException(
              "no answer within " + CALL_TIMEOUT_SECONDS + " s: " + cmd);
        }
        return new Ran(
            p.exitValue(),
            Files.readString(out, StandardCharsets.UTF_8),
            Files.readString(err, StandardCharsets.UTF_8));
      } finally {
        Files.deleteIfExists(out);
        Files.deleteIfExists(err);
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot run " + cmd + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted running " + cmd, e);
    }
  }
}
