package dev.flows.journalstore;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.journal.RunId;
import dev.flows.kernel.journal.StartRun;
import java.sql.Connection;
import org.junit.jupiter.api.Test;

class CallersPoolTest {
  @Test
  void aJournalOnTheCallersPoolWorksAndLeavesThePoolOpenWhenClosed() throws Exception {
    TestDatabase.Fresh db = TestDatabase.fresh("callers_pool");
    JournalStoreConfig config = JournalStoreConfig.forUrl(db.jdbcUrl());
    try (HikariDataSource pool = new HikariDataSource(PostgresJournal.poolConfig(config))) {
      RunId run;
      try (PostgresJournal journal = PostgresJournal.using(pool, config)) {
        run = journal.startRun(StartRun.of("k", Specs.run("one", Specs.llm("a")))).runId();
        assertThat(journal.run(run)).isPresent();
      }
      assertThat(pool.isClosed()).isFalse();
      try (Connection c = pool.getConnection();
          var st = c.prepareStatement("SELECT count(*) FROM flows.runs WHERE run_id = ?")) {
        st.setString(1, run.value());
        try (var rs = st.executeQuery()) {
          rs.next();
          assertThat(rs.getLong(1)).isEqualTo(1);
        }
      }
    }
  }
}
