package dev.flows.ops.bench;

import java.util.Optional;

/**
 * Whether a fill fits the server's disk: the bytes still to write (the copies left at the size
 * measured on the first ones), plus a tenth for the index builds' sort files and twice {@code
 * max_wal_size} for the WAL (checkpoints overrun it), against the free bytes of the data directory.
 *
 * @param toWrite bytes of the copies still to write, indexes included
 * @param wal the server's {@code max_wal_size} in bytes
 * @param free usable bytes on the data directory's file system
 * @param runs runs the whole fill makes
 * @param bytesPerRun bytes per run of the mix, measured on the first copies
 */
record DiskPreflight(long toWrite, long wal, long free, long runs, long bytesPerRun) {
  /** Bytes the rest of the fill needs free. */
  long need() {
    return toWrite + toWrite / 10 + 2 * wal;
  }

  /** About how many runs of this mix the free space holds, with the same room kept. */
  long runsThatFit() {
    return bytesPerRun == 0 ? 0 : Math.max(0, (long) ((free - 2 * wal) / 1.1 / bytesPerRun));
  }

  /** The one-line refusal when the fill does not fit, naming the free space and what fits. */
  Optional<String> refusal(String where) {
    if (need() <= free) {
      return Optional.empty();
    }
    return Optional.of(
        String.format(
            "growth fill refused: %,d runs need about %.1f GB more (%,d bytes per run measured on"
                + " the first copies, plus WAL and index builds) and %s has %.1f GB free; fill"
                + " at most about %,d runs in all (%s sets the ended runs, a hundredth more wait)"
                + " or free disk",
            runs,
            need() / 1e9,
            bytesPerRun,
            where,
            free / 1e9,
            runsThatFit(),
            GrowthBench.RUNS_ENV));
  }
}
