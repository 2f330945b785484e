package dev.flows.sdk.runtime;

import dev.flows.sdk.compile.FlowSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The single-file flows a worker was given: every {@code NAME.flow.java} under some directories
 * (recursively), known by the sha256 of its source. Looked at again at most once per {@link
 * #RESCAN}, so a flow file edited or added while the worker runs is accepted soon after; a file is
 * hashed again only when its size or modification time changed.
 */
final class SourceDirectories {
  private static final Logger LOG = LoggerFactory.getLogger(SourceDirectories.class);
  static final Duration RESCAN = Duration.ofSeconds(1);

  private record Seen(long size, long modified, String hash) {}

  private final List<Path> dirs;
  private Map<Path, Seen> files = Map.of();
  private Set<String> hashes = Set.of();
  private long scannedAt;
  private boolean scanned;

  SourceDirectories(List<Path> dirs) {
    this.dirs = List.copyOf(dirs);
  }

  /** The hashes of the flow sources under the directories now (rescanned when due). */
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

  /** The first flow file named {@code fileName} under the directories (rescanned when due). */
  synchronized java.util.Optional<Path> find(String fileName) {
    hashes();
    return files.keySet().stream()
        .filter(p -> p.getFileName().toString().equals(fileName))
        .sorted()
        .findFirst();
  }

  private void rescan() {
    Map<Path, Seen> next = new HashMap<>();
    for (Path dir : dirs) {
      try (Stream<Path> walk = Files.walk(dir)) {
        walk.filter(p -> p.getFileName().toString().endsWith(FlowSource.SUFFIX))
            .filter(Files::isRegularFile)
            .forEach(p -> seen(p).ifPresent(s -> next.put(p, s)));
      } catch (IOException | UncheckedIOException e) {
        LOG.warn("cannot read flow directory {}: {}", dir, e.getMessage());
      }
    }
    files = next;
    hashes = next.values().stream().map(Seen::hash).collect(Collectors.toUnmodifiableSet());
  }

  private java.util.Optional<Seen> seen(Path file) {
    try {
      BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
      long modified = a.lastModifiedTime().toMillis();
      Seen before = files.get(file);
      if (before != null && before.size() == a.size() && before.modified() == modified) {
        return java.util.Optional.of(before);
      }
      return java.util.Optional.of(
          new Seen(a.size(), modified, FlowSource.hash(Files.readString(file))));
    } catch (IOException | UncheckedIOException e) {
      LOG.warn("cannot read flow file {}: {}", file, e.getMessage());
      return java.util.Optional.empty();
    }
  }
}
