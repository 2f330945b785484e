package dev.flows.sdk.runtime;

import dev.flows.sdk.compile.FlowSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The single-file flows a worker was given: every {@code NAME.flow.java} under some directories
 * (recursively), known by the sha256 of its source. Looked at again at most once per {@link
 * #RESCAN}, so a flow file edited or added while the worker runs is accepted soon after; a file is
 * hashed again only when its size or modification time changed.
 *
 * <p>Every source seen under a directory is also kept in its archive, {@code
 * DIR/.flows/sources/<sha256>.flow.java} ({@link #ARCHIVE}), and the archived sources stay accepted
 * after their file changed or went, by this worker and by any worker given the directory later: the
 * runs routed to an edited flow's old source go on. The archive is never offered for a new run (a
 * child by name, a schedule tick): those take the files. Deleting an archived file retires that
 * source.
 */
final class SourceDirectories {
  private static final Logger LOG = LoggerFactory.getLogger(SourceDirectories.class);
  static final Duration RESCAN = Duration.ofSeconds(1);

  /** Where, under a flow directory, the sources seen there are kept. */
  static final Path ARCHIVE = Path.of(".flows", "sources");

  private record Seen(long size, long modified, String hash) {}

  private final List<Path> dirs;
  private Map<Path, Seen> files = Map.of();
  private Map<Path, Seen> archived = Map.of();
  private Set<String> hashes = Set.of();

  /** Sources that could not be kept (a read-only directory): tried and logged once. */
  private final Set<String> notKept = new HashSet<>();

  private long scannedAt;
  private boolean scanned;

  SourceDirectories(List<Path> dirs) {
    this.dirs = List.copyOf(dirs);
  }

  /**
   * The hashes of the flow sources under the directories now and of those archived there (rescanned
   * when due).
   */
  synchronized Set<String> hashes() {
    long now = System.nanoTime();
    if (!scanned || now - scannedAt >= RESCAN.toNanos()) {
      scanned = true;
      scannedAt = now;
      rescan();
    }
    return hashes;
  }

  /** Every flow file under the directories now, in path order (rescanned when due). */
  synchronized List<Path> files() {
    hashes();
    return files.keySet().stream().sorted().toList();
  }

  /** The flow files named {@code fileName} under the directories, in path order. */
  synchronized List<Path> find(String fileName) {
    hashes();
    return files.keySet().stream()
        .filter(p -> p.getFileName().toString().equals(fileName))
        .sorted()
        .toList();
  }

  private void rescan() {
    Map<Path, Seen> live = new HashMap<>();
    Map<Path, Seen> kept = new HashMap<>();
    for (Path dir : dirs) {
      Path archive = dir.resolve(ARCHIVE);
      try (Stream<Path> walk = Files.walk(dir)) {
        walk.filter(p -> p.getFileName().toString().endsWith(FlowSource.SUFFIX))
            .filter(Files::isRegularFile)
            .forEach(
                p -> {
                  boolean isArchived = p.startsWith(archive);
                  Map<Path, Seen> into = isArchived ? kept : live;
                  seen(p, isArchived ? archived : files).ifPresent(s -> into.put(p, s));
                });
      } catch (IOException | UncheckedIOException e) {
        LOG.warn("cannot read flow directory {}: {}", dir, e.getMessage());
      }
    }
    Set<String> keptHashes = new HashSet<>();
    kept.values().forEach(s -> keptHashes.add(s.hash()));
    live.forEach(
        (file, s) -> {
          if (keptHashes.add(s.hash()) && !notKept.contains(s.hash())) {
            archive(file, s.hash()).ifPresent(a -> kept.put(a, s));
          }
        });
    files = live;
    archived = kept;
    Set<String> all = new HashSet<>(keptHashes);
    live.values().forEach(s -> all.add(s.hash()));
    hashes = Set.copyOf(all);
  }

  /** Copies {@code file} into the archive of its flow directory; empty when it cannot. */
  private java.util.Optional<Path> archive(Path file, String hash) {
    Path dir = dirs.stream().filter(file::startsWith).findFirst().orElseThrow();
    Path target = dir.resolve(ARCHIVE).resolve(hash + FlowSource.SUFFIX);
    try {
      Files.createDirectories(target.getParent());
      Path tmp = Files.createTempFile(target.getParent(), hash, ".tmp");
      Files.copy(file, tmp, StandardCopyOption.REPLACE_EXISTING);
      if (!FlowSource.hash(Files.readString(tmp)).equals(hash)) {
        Files.delete(tmp); // the file changed while it was copied: kept at the next scan
        return java.util.Optional.empty();
      }
      Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      return java.util.Optional.of(target);
    } catch (IOException | UncheckedIOException e) {
      LOG.warn(
          "cannot keep flow source {} in {} (runs of it wait once the file changes): {}",
          file,
          target,
          e.getMessage());
      notKept.add(hash);
      return java.util.Optional.empty();
    }
  }

  private static java.util.Optional<Seen> seen(Path file, Map<Path, Seen> before) {
    try {
      BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
      long modified = a.lastModifiedTime().toMillis();
      Seen prior = before.get(file);
      if (prior != null && prior.size() == a.size() && prior.modified() == modified) {
        return java.util.Optional.of(prior);
      }
      return java.util.Optional.of(
          new Seen(a.size(), modified, FlowSource.hash(Files.readString(file))));
    } catch (IOException | UncheckedIOException e) {
      LOG.warn("cannot read flow file {}: {}", file, e.getMessage());
      return java.util.Optional.empty();
    }
  }
}
