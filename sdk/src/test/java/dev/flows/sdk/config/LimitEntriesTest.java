package dev.flows.sdk.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.journal.PayloadLimits;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class LimitEntriesTest {
  private static final Path FILE = Path.of("/work/x/flows.json");

  @Test
  void theTopLevelLimitsAreReadOverTheDefaults() {
    FlowsConfig c =
        FlowsConfigLoader.parse(
            FILE,
            """
            {"limits": {"maxRunInputBytes": 65536, "maxSignalBytes": 8192,
                        "maxAnswerBytes": 16384, "maxStepOutputBytes": 1048576,
                        "maxReceiptBytes": 2097152}}
            """);

    assertThat(c.limits()).isEqualTo(new PayloadLimits(65536, 1048576, 2097152, 8192, 16384));
  }

  @Test
  void aFileWithoutLimitsOrNamingSomeKeepsTheDefaultsOfTheRest() {
    assertThat(FlowsConfigLoader.parse(FILE, "{}").limits()).isEqualTo(PayloadLimits.DEFAULTS);
    assertThat(FlowsConfigLoader.parse(FILE, "{\"limits\": {\"maxSignalBytes\": 4096}}").limits())
        .isEqualTo(PayloadLimits.DEFAULTS.withMaxSignalBytes(4096));
  }

  @ParameterizedTest
  @ValueSource(strings = {"4095", "268435456", "1.5", "\"4096\"", "-1", "null"})
  void aBoundThatIsNotAByteCountInRangeIsRefusedNamingItsKeyAndTheRange(String value) {
    assertThatThrownBy(
            () ->
                FlowsConfigLoader.parse(
                    FILE, "{\"limits\": {\"maxRunInputBytes\": " + value + "}}"))
        .isInstanceOfSatisfying(
            FlowsException.class,
            e -> {
              assertThat(e.code()).isEqualTo(ErrorCode.CONFIG_INVALID);
              assertThat(e.oneLine())
                  .contains("/limits/maxRunInputBytes")
                  .contains("4096 to 268435455")
                  .doesNotContain("\n");
            });
  }

  @Test
  void anUnknownLimitOrALimitsThatIsNotAnObjectIsRefusedWithItsPointer() {
    assertThatThrownBy(
            () -> FlowsConfigLoader.parse(FILE, "{\"limits\": {\"maxResultBytes\": 8192}}"))
        .isInstanceOfSatisfying(
            FlowsException.class,
            e -> {
              assertThat(e.code()).isEqualTo(ErrorCode.CONFIG_INVALID);
              assertThat(e.oneLine()).contains("/limits/maxResultBytes");
            });
    assertThatThrownBy(() -> FlowsConfigLoader.parse(FILE, "{\"limits\": 8192}"))
        .isInstanceOfSatisfying(
            FlowsException.class, e -> assertThat(e.oneLine()).contains("/limits"));
  }
}
