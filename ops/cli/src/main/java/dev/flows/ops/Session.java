package dev.flows.ops;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.PayloadLimits;
import dev.flows.kernel.json.Jackson;
import dev.flows.migrations.Migrations;
import dev.flows.migrations.SchemaCheck;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * What one {@code flows} invocation works with: its streams, environment, options and (opened on
 * first use) its database. Commands print through it so that {@code --json} and the one-line
 * refusal format are the same everywhere.
 */
final class Session implements AutoCloseable {
  static final String HOME_VARIABLE = "FLOWS_HOME";
  static final String DEBUG_VARIABLE = "FLOWS_DEBUG";
  static final ObjectMapper JSON = Jackson.mapper();

  private final PrintStream out;
  private final PrintStream err;
  private final Map<String, String> env;
  private final OpsConfig config;
  private final GlobalOptions options;
  private Database database;
  private boolean schemaChecked;
  private boolean startedEmbedded;
  private PostgresJournal journal;
  private PostgresJournal commandJournal;
  private PayloadLimits limits;

  Session(
      PrintStream out,
      PrintStream err,
      Map<String, String> env,
      OpsConfig config,
      GlobalOptions options) {
    this.out = out;
    this.err = err;
    this.env = Map.copyOf(env);
    this.config = config;
    this.options = options;
  }

  PrintStream out() {
    return out;
  }

  PrintStream err() {
    return err;
  }

  Map<String, String> env() {
    return env;
  }

  OpsConfig config() {
    return config;
  }

  boolean json() {
    return options.json;
  }

  boolean debug() {
    return options.debug || "1".equals(env.get(DEBUG_VARIABLE));
  }

  /**
   * {@code $FLOWS_HOME}, else {@code $HOME/.flows} (as git and psql read {@code $HOME}), else the
   * JVM's {@code user.home}.
   */
  Path home() {
    String h = env.get(HOME_VARIABLE);
    if (h != null && !h.isBlank()) {
      return Path.of(h).toAbsolutePath();
    }
    String userHome = env.get("HOME");
    if (userHome == null || userHome.isBlank()) {
      userHome = System.getProperty("user.home");
    }
    return Path.of(userHome, ".flows").toAbsolutePath();
  }

  DatabaseTarget target() {
    return DatabaseTarget.resolve(Optional.ofNullable(options.db), env, home());
  }

  boolean embedded() {
    return target() instanceof DatabaseTarget.Embedded;
  }

  /** The database, connected (and the embedded server started) on first use. */
  Database database() {
    if (database == null) {
      database =
          Database.open(
              target(),
              config,
              line -> {
                startedEmbedded = true;
                notice(line);
              });
    }
    return database;
  }

  /**
   * The database with this build's schema, checked with one query ({@link SchemaCheck}); Flyway
   * starts only when that finds something to do. The embedded default is migrated on the spot (it
   * is ours); any other database with pending migrations is refused {@code migration_pending}, so
   * an operator decides when a shared database changes ({@code flows db migrate}).
   */
  Database readyDatabase() {
    Database db = database();
    if (!schemaChecked && db.withConnection(SchemaCheck::current)) {
      schemaChecked = true;
    }
    if (!schemaChecked) {
      Migrations migrations = Migrations.of(db.dataSource());
      List<String> pending = pending(migrations, db);
      if (!pending.isEmpty()) {
        if (!db.embedded()) {
          throw new FlowsException(
              ErrorCode.MIGRATION_PENDING,
              "the database schema is older than this build; pending: "
                  + String.join(", ", pending),
              db.target().describe(),
              "run `flows db migrate` with the same --db / FLOWS_DATABASE_URL");
        }
        int applied = migrate(migrations, db);
        // Creating the schema is part of a first start, which has said its one line already.
        if (!startedEmbedded) {
          notice("flows: migrated the embedded database (" + applied + " migration(s))");
        }
      }
      schemaChecked = true;
    }
    return db;
  }

  static List<String> pending(Migrations migrations, Database db) {
    try {
      return migrations.pending();
    } catch (RuntimeException e) {
      throw FlowsCli.asFlows(e, db.target().describe());
    }
  }

  static int migrate(Migrations migrations, Database db) {
    try {
      return migrations.migrate();
    } catch (RuntimeException e) {
      throw FlowsCli.asFlows(e, db.target().describe());
    }
  }

  /** The Postgres journal over the ready database, opened on first use. */
  Journal journal() {
    return journal(config.journalPoolSize());
  }

  /**
   * As {@link #journal()}, with a pool of {@code poolSize} connections: a command that hosts a
   * worker needs one per concurrent attempt plus its claim and reconcile loops.
   */
  Journal journal(int poolSize) {
    return journal(poolSize, limits());
  }

  /**
   * The payload limits of this command's journal and in-process worker: flows.json's (see {@link
   * ConfigLimits}), read once, before the database is touched.
   */
  PayloadLimits limits() {
    if (limits == null) {
      limits = ConfigLimits.resolve(env, Path.of("").toAbsolutePath());
    }
    return limits;
  }

  /** As {@link #journal(int)}, taking run inputs, signals and answers within {@code limits}. */
  Journal journal(int poolSize, PayloadLimits limits) {
    if (journal == null) {
      Database db = readyDatabase();
      JournalStoreConfig c = storeConfig(db, poolSize).withPayloadLimits(limits);
      // Through the database's own connections: they follow an embedded server that restarts.
      journal = PostgresJournal.connect(c, db.dataSource());
      // The pool serves the command from here on; its one-off connection is not kept idle.
      db.close();
    }
    return journal;
  }

  /**
   * The Postgres journal for a command that reads or changes a run and ends (show, list, signal,
   * cancel, ...): on the command's one connection, no pool, and a LISTEN connection only if
   * something waits. The pooled {@link #journal()} when one is open already.
   */
  Journal commandJournal() {
    if (journal != null) {
      return journal;
    }
    if (commandJournal == null) {
      PayloadLimits bounds = limits();
      Database db = readyDatabase();
      commandJournal =
          PostgresJournal.forOneCommand(
              db.commandConnection(),
              storeConfig(db, 1).withPayloadLimits(bounds),
              db.dataSource());
    }
    return commandJournal;
  }

  private JournalStoreConfig storeConfig(Database db, int poolSize) {
    return new JournalStoreConfig(
        db.jdbcUrl(),
        db.user(),
        db.password(),
        poolSize,
        config.connectTimeout(),
        JournalStoreConfig.DEFAULT_LISTEN_POLL_INTERVAL,
        JournalStoreConfig.DEFAULT_LISTEN_RECONNECT_DELAY,
        JournalStoreConfig.DEFAULT_EXPIRY_BATCH_SIZE);
  }

  /** A line for the human on stderr (kept off stdout so {@code --json} output stays parseable). */
  void notice(String line) {
    err.println(line);
  }

  /** Prints {@code json} with {@code --json}, else runs {@code human}. */
  void emit(JsonNode json, Consumer<PrintStream> human) {
    if (json()) {
      out.println(write(json));
    } else {
      human.accept(out);
    }
  }

  /** Prints one JSON line per event with {@code --json} (streams like watch), else the text. */
  void event(JsonNode json, String human) {
    if (json()) {
      out.println(write(json));
    } else {
      out.println(human);
    }
    out.flush();
  }

  ObjectNode object() {
    return JSON.createObjectNode();
  }

  /** The refusal contract: one line on stderr, and the same as JSON on stdout with --json. */
  void refuse(FlowsException e) {
    err.println("error " + Database.oneLine(e.oneLine()));
    if (json()) {
      ObjectNode error = JSON.createObjectNode();
      error.put("code", e.code().wire());
      error.put("message", Database.oneLine(e.getMessage()));
      error.put("place", e.place().orElse(""));
      error.put("fix", e.fix().orElse(""));
      error.put("retryable", e.retryable());
      ObjectNode root = JSON.createObjectNode();
      root.set("error", error);
      out.println(write(root));
    }
    if (debug()) {
      e.printStackTrace(err);
    }
  }

  static String write(JsonNode node) {
    try {
      return JSON.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a JSON tree that cannot be written", e);
    }
  }

  @Override
  public void close() {
    if (commandJournal != null) {
      commandJournal.close();
      commandJournal = null;
    }
    if (journal != null) {
      journal.close();
      journal = null;
    }
    if (database != null) {
      database.close();
      database = null;
    }
  }
}
