package dev.flows.ops.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The growth fill's disk preflight: what a fill needs free, and the refusal when it is not. */
class DiskPreflightTest {
  private static final long GB = 1_000_000_000L;

  @Test
  void aFillThatNeedsMoreThanTheFreeSpaceIsRefusedWithWhatFits() {
    // 10,100,000 runs at 6,800 bytes: 68.7 GB to write, 75.5 GB with the index builds' room,
    // 77.5 GB with 1 GB of max_wal_size twice: more than 70 GB free.
    DiskPreflight plan = new DiskPreflight(10_100_000L * 6_800, GB, 70 * GB, 10_100_000, 6_800);

    assertThat(plan.refusal("/data"))
        .hasValueSatisfying(
            line ->
                assertThat(line)
                    .doesNotContain("\n")
                    .contains("10,100,000 runs need about 77.5 GB")
                    .contains("/data has 70.0 GB free")
                    .contains("at most about 9,090,909 runs"));
  }

  @Test
  void aFillThatFitsWithItsWalAndIndexRoomIsNotRefused() {
    DiskPreflight plan = new DiskPreflight(2_020_000L * 6_800, GB, 20 * GB, 2_020_000, 6_800);

    assertThat(plan.need()).isEqualTo(2_020_000L * 6_800 * 11 / 10 + 2 * GB);
    assertThat(plan.refusal("/data")).isEmpty();
  }

  @Test
  void theRoomForWalAndIndexBuildsCountsAgainstTheFreeSpace() {
    // The copies alone (9 GB) fit in 10 GB; with a tenth for the index builds and 2 GB of WAL not.
    DiskPreflight plan = new DiskPreflight(9 * GB, GB, 10 * GB, 1_000_000, 9_000);

    assertThat(plan.refusal("/data")).isPresent();
  }
}
