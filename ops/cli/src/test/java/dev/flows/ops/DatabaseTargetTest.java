package dev.flows.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class DatabaseTargetTest {
  private static final Path HOME = Path.of("/tmp/flows-home-for-test");

  @Test
  void withNeitherOptionNorVariableTheEmbeddedDefaultIsChosen() {
    assertThat(DatabaseTarget.resolve(Optional.empty(), Map.of(), HOME))
        .isEqualTo(new DatabaseTarget.Embedded(HOME));
  }

  @Test
  void aMultiHostJdbcUrlReachesTheDriverUnchanged() {
    String url = "jdbc:postgresql://h1:5432,h2:5433/flows?targetServerType=primary";
    DatabaseTarget.External e = DatabaseTarget.parse(url, "--db", Map.of("PGUSER", "flows"));
    assertThat(e.jdbcUrl()).isEqualTo(url);
    assertThat(e.user()).contains("flows");
  }

  @Test
  void aLibpqUrlBecomesJdbcWithDecodedCredentials() {
    DatabaseTarget.External e =
        DatabaseTarget.parse(
            "postgres://al%40ice:p%3Ass@db.example:6543/app?sslmode=require", "--db", Map.of());
    assertThat(e.jdbcUrl()).isEqualTo("jdbc:postgresql://db.example:6543/app?sslmode=require");
    assertThat(e.user()).contains("al@ice");
    assertThat(e.password()).contains("p:ss");
    assertThat(e.describe()).doesNotContain("p:ss");
  }

  @Test
  void pgUserAndPasswordFillInWhatTheUrlLeavesOut() {
    Map<String, String> env = Map.of("PGUSER", "bob", "PGPASSWORD", "pw");
    DatabaseTarget.External libpq = DatabaseTarget.parse("postgresql://h/db", "x", env);
    assertThat(libpq.user()).contains("bob");
    assertThat(libpq.password()).contains("pw");
    DatabaseTarget.External jdbc =
        DatabaseTarget.parse("jdbc:postgresql://h/db?user=carol&password=x", "x", env);
    assertThat(jdbc.user()).isEmpty();
    assertThat(jdbc.password()).isEmpty();
  }

  @Test
  void theVariableIsUsedWhenThereIsNoOption() {
    DatabaseTarget t =
        DatabaseTarget.resolve(
            Optional.empty(), Map.of(DatabaseTarget.URL_VARIABLE, "postgres://h:1/d"), HOME);
    assertThat(t).isInstanceOf(DatabaseTarget.External.class);
    assertThat(((DatabaseTarget.External) t).source()).isEqualTo(DatabaseTarget.URL_VARIABLE);
  }

  @Test
  void otherSchemesAndHostlessUrlsAreRefused() {
    for (String bad : new String[] {"mysql://h/d", "postgres:///d", "h:5432/d"}) {
      assertThatThrownBy(() -> DatabaseTarget.parse(bad, "--db", Map.of()))
          .isInstanceOfSatisfying(
              FlowsException.class, f -> assertThat(f.code()).isEqualTo(ErrorCode.INVALID_INPUT));
    }
  }
}
