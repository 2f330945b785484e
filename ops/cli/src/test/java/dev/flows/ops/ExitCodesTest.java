package dev.flows.ops;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

class ExitCodesTest {
  @Test
  void environmentFailuresExitOneAndEveryOtherCodeIsARefusal() {
    assertThat(Exit.forCode(ErrorCode.DATABASE_UNAVAILABLE)).isEqualTo(Exit.FAILED);
    assertThat(Exit.forCode(ErrorCode.DATABASE_ERROR)).isEqualTo(Exit.FAILED);
    assertThat(Exit.forCode(ErrorCode.INTERNAL_ERROR)).isEqualTo(Exit.FAILED);
    assertThat(Exit.forCode(ErrorCode.RUN_NOT_FOUND)).isEqualTo(Exit.REFUSED);
    assertThat(Exit.forCode(ErrorCode.MIGRATION_PENDING)).isEqualTo(Exit.REFUSED);
    assertThat(Exit.forCode(ErrorCode.INVALID_INPUT)).isEqualTo(Exit.REFUSED);
  }

  @Test
  void anUnexpectedExceptionBecomesAnInternalErrorWithAFix() {
    FlowsException f = FlowsCli.asFlows(new IllegalStateException("bug\nsecond line"), "flows x");
    assertThat(f.code()).isEqualTo(ErrorCode.INTERNAL_ERROR);
    assertThat(f.place()).contains("flows x");
    assertThat(f.fix()).hasValueSatisfying(fix -> assertThat(fix).contains("--debug"));
  }

  @Test
  void aWrappedFlowsExceptionOrSqlExceptionKeepsItsMeaning() {
    FlowsException inner =
        new FlowsException(ErrorCode.RUN_NOT_FOUND, "no run", "r1", "check the id");
    assertThat(FlowsCli.asFlows(new RuntimeException(inner), "x")).isSameAs(inner);
    FlowsException sql =
        FlowsCli.asFlows(new RuntimeException(new SQLException("gone", "08006")), "x");
    assertThat(sql.code()).isEqualTo(ErrorCode.DATABASE_UNAVAILABLE);
    FlowsException refused =
        FlowsCli.asFlows(new RuntimeException(new SQLException("bad", "42P01")), "x");
    assertThat(refused.code()).isEqualTo(ErrorCode.DATABASE_ERROR);
  }
}
