package dev.flows.ops;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Drives {@link FlowsCli#run} in-process with an explicit environment and captured streams. */
final class Cli {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** What one command printed and how it exited. */
  record Result(int exit, String out, String err) {
    JsonNode json() {
      try {
        return JSON.readTree(out);
      } catch (IOException e) {
        throw new UncheckedIOException("stdout is not JSON: " + out, e);
      }
    }

    /** Lines of stdout, each a JSON document (streaming commands such as watch). */
    List<JsonNode> jsonLines() {
      return out.lines()
          .filter(l -> !l.isBlank())
          .map(
              l -> {
                try {
                  return JSON.readTree(l);
                } catch (IOException e) {
                  throw new UncheckedIOException("not a JSON line: " + l, e);
                }
              })
          .toList();
    }

    List<String> errLines() {
      return err.lines().filter(l -> !l.isBlank()).toList();
    }
  }

  private final Map<String, String> env;
  private final OpsConfig config;

  Cli(Map<String, String> env, OpsConfig config) {
    this.env = Map.copyOf(env);
    this.config = config;
  }

  Cli(Map<String, String> env) {
    this(env, OpsConfig.defaults());
  }

  Cli with(String name, String value) {
    Map<String, String> e = new HashMap<>(env);
    e.put(name, value);
    return new Cli(e, config);
  }

  Result run(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit;
    try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
      exit = FlowsCli.run(args, o, e, env, config);
    }
    return new Result(
        exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }
}
