package dev.flows.ops;

import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/** Options every {@code flows} command takes, before or after the subcommand name. */
final class GlobalOptions {
  @Option(
      names = "--db",
      paramLabel = "URL",
      scope = ScopeType.INHERIT,
      description =
          "Database: jdbc:postgresql://... or postgres://USER:PASS@HOST:PORT/DB (default:"
              + " $FLOWS_DATABASE_URL, else the embedded database under $FLOWS_HOME/pg).")
  String db;

  @Option(
      names = "--json",
      scope = ScopeType.INHERIT,
      description = "Print machine-readable JSON on stdout (refusals as {\"error\":{...}}).")
  boolean json;

  @Option(
      names = "--debug",
      scope = ScopeType.INHERIT,
      description = "Print stack traces of failures (also FLOWS_DEBUG=1).")
  boolean debug;
}
