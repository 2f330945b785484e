package dev.flows.embed;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flows.sdk.Flow;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The public API of {@code sdk/api} (package {@code dev.flows.sdk}) and {@code sdk/embed} (package
 * {@code dev.flows.embed}) is pinned: every public type and member, as the compiled classes declare
 * them, is listed in {@code sdk/api/api-surface.txt} and {@code sdk/embed/api-surface.txt}, a
 * report a reviewer reads. A change of the surface fails here, printing the difference, until the
 * list is updated in the same commit ({@code -Dapi.surface.update=true} rewrites both files). And
 * no public signature names a type the two modules do not own, beyond {@code java.*}, Jackson's
 * {@code JsonNode} family and JSpecify: there is no list of allowed leaks, any one fails.
 */
class PublicApiSurfaceTest {
  static final Path ROOT = Path.of("../..").toAbsolutePath().normalize();
  private static final boolean UPDATE = Boolean.getBoolean("api.surface.update");

  @Test
  void theSurfaceOfSdkApiIsTheCheckedInList() throws Exception {
    pinned(
        ApiSurface.of(classes(Flow.class), "dev.flows.sdk").lines(),
        ROOT.resolve("sdk/api/api-surface.txt"));
  }

  @Test
  void theSurfaceOfSdkEmbedIsTheCheckedInList() throws Exception {
    pinned(
        ApiSurface.of(classes(Flows.class), "dev.flows.embed").lines(),
        ROOT.resolve("sdk/embed/api-surface.txt"));
  }

  @Test
  void noPublicSignatureNamesATypeTheApiDoesNotOwn() throws Exception {
    Set<String> leaks = new TreeSet<>();
    leaks.addAll(ApiSurface.of(classes(Flow.class), "dev.flows.sdk").leaks());
    leaks.addAll(ApiSurface.of(classes(Flows.class), "dev.flows.embed").leaks());
    assertThat(leaks)
        .as("public signatures naming a type sdk/api and sdk/embed do not own")
        .isEmpty();
  }

  /** Fails with the difference when {@code actual} is not the file's lines (or rewrites it). */
  static void pinned(List<String> actual, Path file) throws IOException {
    if (UPDATE) {
      Files.write(file, actual);
      return;
    }
    List<String> expected = Files.exists(file) ? Files.readAllLines(file) : List.of();
    List<String> diff = new ArrayList<>();
    expected.stream().filter(l -> !actual.contains(l)).forEach(l -> diff.add("- " + l));
    actual.stream().filter(l -> !expected.contains(l)).forEach(l -> diff.add("+ " + l));
    assertThat(diff)
        .as(
            "%s differs from the compiled classes (- listed only, + compiled only); if the change"
                + " is meant, update the file in the same commit (-Dapi.surface.update=true)",
            ROOT.relativize(file))
        .isEmpty();
  }

  /** Where {@code anchor}'s module's classes are: its classes directory or its jar. */
  static Path classes(Class<?> anchor) throws URISyntaxException {
    return Path.of(anchor.getProtectionDomain().getCodeSource().getLocation().toURI());
  }

  /**
   * The classes under {@code classesRoot}: a classes directory when a module's tests run alone, its
   * jar when the whole build has packaged it first.
   */
  static Stream<String> classNames(Path classesRoot) throws IOException {
    if (Files.isRegularFile(classesRoot)) {
      try (FileSystem jar = FileSystems.newFileSystem(classesRoot)) {
        return namesUnder(jar.getPath("/"));
      }
    }
    return namesUnder(classesRoot);
  }

  private static Stream<String> namesUnder(Path root) throws IOException {
    try (Stream<Path> files = Files.walk(root)) {
      return files
          .filter(p -> p.toString().endsWith(".class"))
          .map(p -> root.relativize(p).toString())
          .filter(n -> !n.startsWith("META-INF"))
          .map(n -> n.substring(0, n.length() - ".class".length()).replace('/', '.'))
          .toList()
          .stream();
    }
  }
}
