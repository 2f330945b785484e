package dev.flows.journalstore;

import com.zaxxer.hikari.HikariConfig;

/** The HikariCP settings a journal opens its own pool with. */
final class JournalPools {
  private JournalPools() {}

  static HikariConfig poolConfig(JournalStoreConfig config) {
    HikariConfig h = new HikariConfig();
    h.setJdbcUrl(config.jdbcUrl());
    config.user().ifPresent(h::setUsername);
    config.password().ifPresent(h::setPassword);
    h.setMaximumPoolSize(config.poolSize());
    h.setConnectionTimeout(config.connectionTimeout().toMillis());
    h.setPoolName("flows-journal");
    // Fail on first use, not at construction, so a journal can be built while Postgres starts.
    h.setInitializationFailTimeout(-1);
    h.setExceptionOverride(SqlErrors.POOL_EVICTION);
    return h;
  }
}
