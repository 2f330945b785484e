package dev.flows.journalstore;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.SQLExceptionOverride;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SqlErrorsTest {
  @ParameterizedTest
  @ValueSource(
      strings = {
        "08001", "08006", "57P01", "57P02", "57P03", "53000", "53100", "53200", "53300", "57014"
      })
  void theseSqlStatesMeanTheDatabaseIsUnavailable(String state) {
    FlowsException e = SqlErrors.translate(new RuntimeException(new SQLException("x", state)));
    assertThat(e.code()).isEqualTo(ErrorCode.DATABASE_UNAVAILABLE);
    assertThat(e.retryable()).isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {"40001", "40P01"})
  void serializationFailuresAndDeadlocksAreRetryableErrors(String state) {
    FlowsException e = SqlErrors.translate(new SQLException("x", state));
    assertThat(e.code()).isEqualTo(ErrorCode.DATABASE_ERROR);
    assertThat(e.retryable()).isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {"23505", "42P01", "22P02"})
  void otherSqlStatesAreErrorsThatFailFast(String state) {
    FlowsException e = SqlErrors.translate(new SQLException("x", state));
    assertThat(e.code()).isEqualTo(ErrorCode.DATABASE_ERROR);
    assertThat(e.retryable()).isFalse();
  }

  @Test
  void aPooledConnectionFoundClosedIsUnavailableAndAnyOtherStatelessFailureIsAnError() {
    assertThat(SqlErrors.translate(new SQLException("Connection is closed")).code())
        .isEqualTo(ErrorCode.DATABASE_UNAVAILABLE);
    assertThat(SqlErrors.translate(new SQLException("syntax error")).code())
        .isEqualTo(ErrorCode.DATABASE_ERROR);
  }

  @Test
  void aServerThatTakesNoWritesIsUnavailableForUsAndItsConnectionIsEvicted() {
    SQLException readOnly =
        new SQLException("ERROR: cannot execute INSERT in a read-only transaction", "25006");
    FlowsException e = SqlErrors.translate(new RuntimeException(readOnly));
    assertThat(e.code()).isEqualTo(ErrorCode.DATABASE_UNAVAILABLE);
    assertThat(e.retryable()).isTrue();
    assertThat(e.fix()).hasValueSatisfying(f -> assertThat(f).contains("targetServerType=primary"));
    assertThat(SqlErrors.POOL_EVICTION.adjudicate(readOnly))
        .isEqualTo(SQLExceptionOverride.Override.MUST_EVICT);
  }

  @Test
  void theReadOnlyRefusalIsRecognisedByItsWordsWhenNoSqlStateCameWithIt() {
    SQLException words =
        new SQLException("ERROR: cannot execute UPDATE in a read-only transaction");
    assertThat(SqlErrors.translate(words).code()).isEqualTo(ErrorCode.DATABASE_UNAVAILABLE);
    assertThat(SqlErrors.POOL_EVICTION.adjudicate(words))
        .isEqualTo(SQLExceptionOverride.Override.MUST_EVICT);
  }

  @ParameterizedTest
  @ValueSource(strings = {"23505", "40001", "57P01"})
  void otherFailuresLeaveEvictionToHikari(String state) {
    assertThat(SqlErrors.POOL_EVICTION.adjudicate(new SQLException("x", state)))
        .isEqualTo(SQLExceptionOverride.Override.CONTINUE_EVICT);
  }

  @Test
  void aFullDiskSaysToFreeSpaceAndThatTheCallMayBeRetried() {
    FlowsException e =
        SqlErrors.translate(
            new SQLException(
                "ERROR: could not extend file \"base/1/2\": No space left on device", "53100"));
    assertThat(e.code()).isEqualTo(ErrorCode.DATABASE_UNAVAILABLE);
    assertThat(e.fix()).hasValueSatisfying(f -> assertThat(f).contains("disk is full", "retried"));
  }

  @Test
  void aStatementTimeoutSaysWhichSettingAndThatTheCallMayBeRetried() {
    FlowsException e =
        SqlErrors.translate(
            new SQLException("ERROR: canceling statement due to statement timeout", "57014"));
    assertThat(e.code()).isEqualTo(ErrorCode.DATABASE_UNAVAILABLE);
    assertThat(e.retryable()).isTrue();
    assertThat(e.fix()).hasValueSatisfying(f -> assertThat(f).contains("statement_timeout"));
  }

  @Test
  void slotsExhaustedBehindThePoolsTimeoutAreToldInTheServersWordsWithTheFix() {
    SQLException server = new SQLException("FATAL: sorry, too many clients already", "53300");
    SQLException pool =
        new SQLTransientConnectionException(
            "flows-journal - Connection is not available, request timed out after 10000ms",
            "08001",
            server);
    FlowsException e = SqlErrors.translate(pool);
    assertThat(e.code()).isEqualTo(ErrorCode.DATABASE_UNAVAILABLE);
    assertThat(e.getMessage()).contains("too many clients").contains("53300");
    assertThat(e.fix()).hasValueSatisfying(f -> assertThat(f).contains("max_connections"));
  }
}
