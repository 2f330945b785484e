package dev.flows.embed;

import com.zaxxer.hikari.HikariDataSource;
import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.LoginCheck;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.journalstore.SqlErrors;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.PayloadLimits;
import dev.flows.migrations.Migrations;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The journal a {@link Flows} writes to, on a pool it opened from a JDBC URL (closed with it) or on
 * the caller's {@link DataSource} (left open), after the schema check: pending migrations are
 * applied when asked, else refused {@code migration_pending}. Or a journal the test kit made
 * ({@link #given}), which it closes itself.
 */
final class Storage implements AutoCloseable {
  /** Where the database is. */
  sealed interface Target {
    record Url(String jdbcUrl, Optional<String> user, Optional<String> password)
        implements Target {}

    record GivenPool(DataSource dataSource) implements Target {}
  }

  private final Journal journal;
  private final Optional<HikariDataSource> ownedPool;
  private final Optional<DataSource> dataSource;
  private final Runnable closeJournal;

  private Storage(
      Journal journal,
      Optional<HikariDataSource> ownedPool,
      Optional<DataSource> dataSource,
      Runnable closeJournal) {
    this.journal = journal;
    this.ownedPool = ownedPool;
    this.dataSource = dataSource;
    this.closeJournal = closeJournal;
  }

  private static Storage postgres(
      PostgresJournal journal, Optional<HikariDataSource> ownedPool, DataSource dataSource) {
    return new Storage(journal, ownedPool, Optional.of(dataSource), journal::close);
  }

  /**
   * A journal its maker keeps and closes (the test kit's in-memory or test-clock one); {@code
   * listing} is the database run listing reads, when there is one.
   */
  static Storage given(Journal journal, Optional<DataSource> listing) {
    return new Storage(journal, Optional.empty(), listing, () -> {});
  }

  /** Opens the journal on {@code target}, taking payloads within {@code limits}. */
  static Storage open(Target target, int poolSize, boolean migrate, PayloadLimits limits) {
    return switch (target) {
      case Target.Url u -> {
        JournalStoreConfig config =
            new JournalStoreConfig(
                    u.jdbcUrl(),
                    u.user(),
                    u.password(),
                    poolSize,
                    JournalStoreConfig.DEFAULT_CONNECTION_TIMEOUT,
                    JournalStoreConfig.DEFAULT_LISTEN_POLL_INTERVAL,
                    JournalStoreConfig.DEFAULT_LISTEN_RECONNECT_DELAY,
                    JournalStoreConfig.DEFAULT_EXPIRY_BATCH_SIZE)
                .withPayloadLimits(limits);
        LoginCheck.refuseWrongLogin(config, withoutQuery(u.jdbcUrl()));
        HikariDataSource pool = new HikariDataSource(PostgresJournal.poolConfig(config));
        try {
          checkSchema(pool, migrate, withoutQuery(u.jdbcUrl()));
          yield postgres(PostgresJournal.using(pool, config), Optional.of(pool), pool);
        } catch (RuntimeException e) {
          pool.close();
          throw e;
        }
      }
      case Target.GivenPool g -> {
        String url = urlOf(g.dataSource());
        checkSchema(g.dataSource(), migrate, url);
        JournalStoreConfig config =
            JournalStoreConfig.forUrl(url).withPoolSize(poolSize).withPayloadLimits(limits);
        yield postgres(
            PostgresJournal.listeningOn(g.dataSource(), config), Optional.empty(), g.dataSource());
      }
    };
  }

  Journal journal() {
    return journal;
  }

  /**
   * The pool the journal uses, for the reads the journal port has no verb for (run listing); empty
   * on the test kit's in-memory journal.
   */
  Optional<DataSource> dataSource() {
    return dataSource;
  }

  /** The database's URL without its query (which may carry a password), for messages. */
  private static String urlOf(DataSource ds) {
    String url;
    try (Connection c = ds.getConnection()) {
      url = withoutQuery(c.getMetaData().getURL());
    } catch (SQLException e) {
      throw SqlErrors.translate(e);
    }
    if (!url.startsWith("jdbc:postgresql:")) {
      throw new FlowsException(
          ErrorCode.CONFIG_INVALID,
          "the DataSource is not a Postgres database (" + url + ")",
          "Flows.builder().dataSource(...)",
          "give a DataSource of the Postgres database that holds (or will hold) schema flows");
    }
    return url;
  }

  private static String withoutQuery(String url) {
    int q = url.indexOf('?');
    return q < 0 ? url : url.substring(0, q);
  }

  private static void checkSchema(DataSource ds, boolean migrate, String where) {
    try {
      Migrations migrations = Migrations.of(ds);
      List<String> pending = migrations.pending();
      if (pending.isEmpty()) {
        return;
      }
      if (!migrate) {
        throw new FlowsException(
            ErrorCode.MIGRATION_PENDING,
            "the database schema is older than this build; pending: " + String.join(", ", pending),
            where,
            "build with .migrate(true), or run `flows db migrate` against the same database");
      }
      migrations.migrate();
    } catch (FlowsException e) {
      throw e;
    } catch (RuntimeException e) {
      throw SqlErrors.translate(e);
    }
  }

  /** Closes the journal, then the pool it opened (never a pool the caller gave). */
  @Override
  public void close() {
    closeJournal.run();
    ownedPool.ifPresent(HikariDataSource::close);
  }
}
