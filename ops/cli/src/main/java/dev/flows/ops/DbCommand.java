package dev.flows.ops;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.migrations.Migrations;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code flows db start | stop | status}: the database flows journals into. */
@Command(
    name = "db",
    description = "Start, stop, inspect or migrate the database.",
    mixinStandardHelpOptions = true,
    subcommands = {
      DbCommand.Start.class,
      DbCommand.Stop.class,
      DbCommand.Status.class,
      DbCommand.Migrate.class
    })
final class DbCommand implements Callable<Integer> {
  @Override
  public Integer call() {
    throw new FlowsException(
        ErrorCode.INVALID_INPUT,
        "a subcommand is required",
        "flows db",
        "use `flows db start`, `stop`, `status` or `migrate`");
  }

  /** Describes the connected database (JSON object {@code database}). */
  static ObjectNode describe(Session s, Database db) {
    ObjectNode d = s.object();
    d.put("kind", db.embedded() ? "embedded" : "external");
    d.put("jdbcUrl", db.shownUrl());
    d.put("user", db.user().orElse(""));
    db.withConnection(
        c -> {
          try (Statement st = c.createStatement();
              ResultSet rs =
                  st.executeQuery(
                      "SELECT current_setting('server_version'), current_setting('fsync'),"
                          + " current_setting('synchronous_commit')")) {
            rs.next();
            d.put("serverVersion", rs.getString(1));
            d.put("fsync", rs.getString(2));
            d.put("synchronousCommit", rs.getString(3));
          }
          return null;
        });
    List<String> pending = Session.pending(Migrations.of(db.dataSource()), db);
    d.put("schemaCurrent", pending.isEmpty());
    ArrayNode p = d.putArray("pendingMigrations");
    pending.forEach(p::add);
    return d;
  }

  @Command(
      name = "start",
      mixinStandardHelpOptions = true,
      description =
          "Start the embedded database (or check that the --db one answers); it keeps running.")
  static final class Start implements Callable<Integer> {
    private final Session s;

    Start(Session s) {
      this.s = s;
    }

    @Override
    public Integer call() {
      Database db = s.embedded() ? s.readyDatabase() : s.database();
      ObjectNode out = s.object();
      ObjectNode d = describe(s, db);
      if (db.target() instanceof DatabaseTarget.Embedded e) {
        EmbeddedServer server = new EmbeddedServer(e.flowsHome(), s.config());
        server.find().ifPresent(r -> d.put("port", r.port()).put("pid", r.pid()));
        d.put("dataDir", server.dataDir().toString());
      }
      out.set("database", d);
      s.emit(
          out,
          p ->
              p.println(
                  "database ready: "
                      + where(db)
                      + " (PostgreSQL "
                      + d.path("serverVersion").asText()
                      + ", fsync "
                      + d.path("fsync").asText()
                      + ", synchronous_commit "
                      + d.path("synchronousCommit").asText()
                      + ")"
                      + schemaNote(d)));
      return Exit.SUCCESS;
    }
  }

  /** Where the database is, naming its URL once (the embedded target's description has none). */
  static String where(Database db) {
    return db.embedded() ? db.target().describe() + ", " + db.shownUrl() : db.target().describe();
  }

  /** A {@code psql} command line to paste; the shell reads the password from its file. */
  static String psql(EmbeddedServer.Running r, Path passwordFile) {
    return "PGPASSWORD=\"$(cat "
        + shellQuote(passwordFile.toString())
        + ")\" psql -h localhost -p "
        + r.port()
        + " -U "
        + EmbeddedServer.USER
        + " "
        + EmbeddedServer.DATABASE;
  }

  /**
   * A {@code psql} command line to paste, without the password (psql asks for it, or reads {@code
   * PGPASSWORD}).
   */
  static String psql(Database db) {
    return "psql " + shellQuote(libpqUrl(db.jdbcUrl(), db.user()));
  }

  /** libpq's parameters that a JDBC URL may carry under the same name. */
  private static final Set<String> LIBPQ_PARAMETERS =
      Set.of(
          "sslmode",
          "sslrootcert",
          "sslcert",
          "sslkey",
          "connect_timeout",
          "application_name",
          "options",
          "target_session_attrs");

  /** {@code postgresql://[USER@]HOSTS/DB[?libpq params]}, without any password. */
  static String libpqUrl(String jdbcUrl, Optional<String> user) {
    String rest = jdbcUrl.substring("jdbc:postgresql://".length());
    int q = rest.indexOf('?');
    String hostAndDb = q < 0 ? rest : rest.substring(0, q);
    List<String> kept = new java.util.ArrayList<>();
    Optional<String> who = user;
    if (q >= 0) {
      for (String param : rest.substring(q + 1).split("&")) {
        int eq = param.indexOf('=');
        String name = eq < 0 ? param : param.substring(0, eq);
        if (name.equals("user") && eq >= 0 && who.isEmpty()) {
          who = Optional.of(URLDecoder.decode(param.substring(eq + 1), StandardCharsets.UTF_8));
        } else if (LIBPQ_PARAMETERS.contains(name)) {
          kept.add(param);
        }
      }
    }
    return "postgresql://"
        + who.map(u -> URLEncoder.encode(u, StandardCharsets.UTF_8) + "@").orElse("")
        + hostAndDb
        + (kept.isEmpty() ? "" : "?" + String.join("&", kept));
  }

  private static String shellQuote(String s) {
    return "'" + s.replace("'", "'\\''") + "'";
  }

  static String schemaNote(ObjectNode d) {
    return d.path("schemaCurrent").asBoolean(true)
        ? ""
        : "; schema behind, pending " + d.path("pendingMigrations") + ", run `flows db migrate`";
  }

  @Command(
      name = "migrate",
      mixinStandardHelpOptions = true,
      description = "Apply this build's schema migrations (Flyway, schema flows).")
  static final class Migrate implements Callable<Integer> {
    private final Session s;

    Migrate(Session s) {
      this.s = s;
    }

    @Override
    public Integer call() {
      Database db = s.database();
      int applied = Session.migrate(Migrations.of(db.dataSource()), db);
      ObjectNode out = s.object();
      out.put("applied", applied);
      out.set("database", describe(s, db));
      s.emit(
          out,
          p ->
              p.println(
                  applied == 0
                      ? "schema already current: " + db.target().describe()
                      : "applied " + applied + " migration(s) to " + db.target().describe()));
      return Exit.SUCCESS;
    }
  }

  @Command(
      name = "stop",
      mixinStandardHelpOptions = true,
      description = "Stop the embedded database (its data stays under $FLOWS_HOME/pg).")
  static final class Stop implements Callable<Integer> {
    private final Session s;

    Stop(Session s) {
      this.s = s;
    }

    @Override
    public Integer call() {
      if (!(s.target() instanceof DatabaseTarget.Embedded e)) {
        throw new FlowsException(
            ErrorCode.INVALID_INPUT,
            "flows only stops its own embedded database, not " + s.target().describe(),
            "flows db stop",
            "stop that server with its own tools, or drop --db / FLOWS_DATABASE_URL");
      }
      EmbeddedServer server = new EmbeddedServer(e.flowsHome(), s.config());
      boolean stopped = server.stop();
      ObjectNode out = s.object();
      out.put("stopped", stopped);
      out.put("dataDir", server.dataDir().toString());
      s.emit(
          out,
          p ->
              p.println(
                  stopped
                      ? "stopped the embedded database at " + server.pgDir()
                      : "the embedded database at " + server.pgDir() + " was not running"));
      return Exit.SUCCESS;
    }
  }

  @Command(
      name = "status",
      mixinStandardHelpOptions = true,
      description = "Where the database is, whether it runs, and its durability settings.")
  static final class Status implements Callable<Integer> {
    private final Session s;

    Status(Session s) {
      this.s = s;
    }

    @Override
    public Integer call() {
      ObjectNode out = s.object();
      if (s.target() instanceof DatabaseTarget.Embedded e) {
        // Status never starts the server: it reports what is.
        EmbeddedServer server = new EmbeddedServer(e.flowsHome(), s.config());
        Optional<EmbeddedServer.Running> running = server.find();
        ObjectNode d = running.isPresent() ? describe(s, s.database()) : s.object();
        d.put("kind", "embedded");
        d.put("dataDir", server.dataDir().toString());
        d.put("initialized", server.initialized());
        d.put("running", running.isPresent());
        running.ifPresent(r -> d.put("port", r.port()).put("pid", r.pid()));
        out.set("database", d);
        s.emit(
            out,
            p -> {
              p.println("embedded database: " + server.pgDir());
              p.println("  initialized: " + server.initialized());
              p.println(
                  "  running: "
                      + running
                          .map(r -> "yes, port " + r.port() + ", pid " + r.pid())
                          .orElse("no (the next command that needs it starts it)"));
              printSettings(p, d);
              if (running.isPresent()) {
                p.println("  url: " + d.path("jdbcUrl").asText());
                p.println("  psql: " + psql(running.get(), server.passwordFile()));
              }
            });
        return Exit.SUCCESS;
      }
      Database db = s.database();
      ObjectNode d = describe(s, db);
      d.put("running", true);
      out.set("database", d);
      s.emit(
          out,
          p -> {
            p.println("database: " + db.target().describe());
            p.println("  running: yes");
            printSettings(p, d);
            p.println("  psql: " + psql(db));
          });
      return Exit.SUCCESS;
    }

    private static void printSettings(java.io.PrintStream p, ObjectNode d) {
      if (d.has("schemaCurrent")) {
        p.println(
            "  schema: "
                + (d.path("schemaCurrent").asBoolean()
                    ? "current"
                    : "behind, pending " + d.path("pendingMigrations") + " (`flows db migrate`)"));
      }
      if (d.has("serverVersion")) {
        p.println("  PostgreSQL " + d.path("serverVersion").asText());
        p.println(
            "  fsync "
                + d.path("fsync").asText()
                + ", synchronous_commit "
                + d.path("synchronousCommit").asText());
      }
    }
  }
}
