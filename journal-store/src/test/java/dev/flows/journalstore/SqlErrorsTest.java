package dev.flows.journalstore;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SqlErrorsTest {
  @ParameterizedTest
  @ValueSource(strings = {"08001", "08006", "57P01", "57P02", "57P03", "53300", "53000"})
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
}
