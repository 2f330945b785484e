package dev.flows.sdk.compile;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.keys.Keys;
import dev.flows.sdk.Flow;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.FileObject;
import javax.tools.ForwardingJavaFileManager;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileManager;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

/**
 * A single-file flow ({@code NAME.flow.java}) compiled in-process with javax.tools: no build step
 * for the author. The source and its hash travel in the journal, so any worker can compile and
 * replay the exact code a run started with.
 */
public final class FlowSource {
  public static final String SUFFIX = ".flow.java";
  private static final Pattern PACKAGE = Pattern.compile("(?m)^\\s*package\\s+([\\w.]+)\\s*;");
  private static final Pattern CLASS =
      Pattern.compile(
          "(?m)^\\s*(?:public\\s+)?(?:final\\s+)?class\\s+(\\w+)\\b[^{]*\\bimplements\\b[^{]*\\bFlow\\b");
  private static final Pattern MCP_CALL = Pattern.compile("\\.mcp\\(\\s*\"([^\"\\\\]*)\"\\s*\\)");
  private static final Pattern MCP_TOOL_CALL =
      Pattern.compile(MCP_CALL.pattern() + "\\s*\\.tool\\(\\s*\"([^\"\\\\]*)\"\\s*\\)");

  private FlowSource() {}

  /** A compiled flow and where it came from. */
  public record Compiled(Flow flow, String className, String source, String sourceHash) {}

  public static String read(Path file) {
    if (!file.getFileName().toString().endsWith(SUFFIX)) {
      throw new FlowsException(
          ErrorCode.FLOW_INVALID,
          "a single-file flow must be named NAME" + SUFFIX,
          file.toString(),
          "rename the file to end in " + SUFFIX);
    }
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new FlowsException(
          ErrorCode.FLOW_INVALID,
          "cannot read flow file: " + e.getMessage(),
          file.toString(),
          "check the path and its permissions");
    }
  }

  public static String hash(String source) {
    return Keys.sha256Hex(source);
  }

  /** The server names the source passes to {@code f.mcp("...")} as string literals. */
  public static Set<String> mcpServersCalled(String source) {
    Set<String> out = new LinkedHashSet<>();
    Matcher m = MCP_CALL.matcher(stripComments(source));
    while (m.find()) {
      out.add(m.group(1));
    }
    return out;
  }

  /**
   * The tools the source names as {@code f.mcp("server").tool("name")} with both names string
   * literals, by server; a call with a computed server or tool name is not listed.
   */
  public static Map<String, Set<String>> mcpToolsCalled(String source) {
    Map<String, Set<String>> out = new LinkedHashMap<>();
    Matcher m = MCP_TOOL_CALL.matcher(stripComments(source));
    while (m.find()) {
      out.computeIfAbsent(m.group(1), k -> new LinkedHashSet<>()).add(m.group(2));
    }
    return out;
  }

  private static String stripComments(String s) {
    return s.replaceAll("(?s)/\\*.*?\\*/", "").replaceAll("(?m)//.*$", "");
  }

  public static Compiled compile(Path file) {
    return compile(file.toString(), read(file));
  }

  /**
   * Compiles {@code source} against this process's class path and instantiates its flow class (the
   * class implementing {@link Flow}, with a no-argument constructor).
   */
  public static Compiled compile(String origin, String source) {
    Matcher cm = CLASS.matcher(source);
    if (!cm.find()) {
      throw new FlowsException(
          ErrorCode.FLOW_INVALID,
          "no class implementing dev.flows.sdk.Flow found",
          origin,
          "declare `public class NAME implements Flow<IN, OUT> { ... }`");
    }
    String simple = cm.group(1);
    Matcher pm = PACKAGE.matcher(source);
    String className = pm.find() ? pm.group(1) + "." + simple : simple;
    Map<String, ByteArrayOutputStream> classes =
        uninterrupted(() -> classes(origin, className, source));
    return instantiate(origin, className, source, classes);
  }

  /**
   * Compiles on a thread of its own that nothing interrupts, and waits for it without giving up:
   * javac keeps the JDK's {@code ct.sym} (what {@code --release} compiles against) open for the
   * whole process, and an interrupt during its read (a worker canceling an attempt whose lease it
   * lost) would close it for every later compile. The caller's interrupt is kept for after.
   */
  private static <T> T uninterrupted(java.util.function.Supplier<T> compile) {
    java.util.concurrent.CompletableFuture<T> done =
        java.util.concurrent.CompletableFuture.supplyAsync(
            compile, r -> Thread.ofPlatform().daemon().name("flows-javac").start(r));
    boolean interrupted = false;
    try {
      while (true) {
        try {
          return done.get();
        } catch (InterruptedException e) {
          interrupted = true;
        } catch (java.util.concurrent.ExecutionException e) {
          if (e.getCause() instanceof RuntimeException r) {
            throw r;
          }
          if (e.getCause() instanceof Error err) {
            throw err;
          }
          throw new IllegalStateException(e.getCause());
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** The class files javac makes of {@code source}, by class name, or the compiler's refusal. */
  private static Map<String, ByteArrayOutputStream> classes(
      String origin, String className, String source) {
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    if (javac == null) {
      throw new FlowsException(
          ErrorCode.FLOW_INVALID,
          "this Java runtime has no compiler",
          origin,
          "run flows with a JDK (>= 21), not a JRE");
    }
    DiagnosticCollector<JavaFileObject> diags = new DiagnosticCollector<>();
    Map<String, ByteArrayOutputStream> classes = new HashMap<>();
    try (StandardJavaFileManager std = javac.getStandardFileManager(diags, Locale.ROOT, null)) {
      JavaFileManager fm =
          new ForwardingJavaFileManager<>(std) {
            @Override
            public JavaFileObject getJavaFileForOutput(
                Location location, String name, JavaFileObject.Kind kind, FileObject sibling) {
              return new SimpleJavaFileObject(
                  URI.create("mem:///" + name.replace('.', '/') + kind.extension), kind) {
                @Override
                public OutputStream openOutputStream() {
                  return classes.computeIfAbsent(name, k -> new ByteArrayOutputStream());
                }
              };
            }
          };
      JavaFileObject unit =
          new SimpleJavaFileObject(
              URI.create("string:///" + className.replace('.', '/') + ".java"),
              JavaFileObject.Kind.SOURCE) {
            @Override
            public CharSequence getCharContent(boolean ignoreEncodingErrors) {
              return source;
            }
          };
      List<String> options =
          List.of(
              "-classpath",
              System.getProperty("java.class.path"),
              "--release",
              "21",
              "-proc:none",
              "-Xlint:none");
      boolean ok = javac.getTask(null, fm, diags, options, null, List.of(unit)).call();
      if (!ok) {
        throw compileError(origin, diags.getDiagnostics());
      }
    } catch (IOException e) {
      throw new FlowsException(
          ErrorCode.FLOW_INVALID, "compiler I/O failed: " + e.getMessage(), origin, "retry");
    }
    return classes;
  }

  /** The flow class of the compiled {@code classes}, made with its no-argument constructor. */
  private static Compiled instantiate(
      String origin, String className, String source, Map<String, ByteArrayOutputStream> classes) {
    ClassLoader loader = new MemoryClassLoader(classes, FlowSource.class.getClassLoader());
    try {
      Class<?> c = Class.forName(className, true, loader);
      if (!Flow.class.isAssignableFrom(c)) {
        throw new FlowsException(
            ErrorCode.FLOW_INVALID,
            className + " does not implement dev.flows.sdk.Flow",
            origin,
            "add `implements Flow`");
      }
      Flow flow = (Flow) c.getDeclaredConstructor().newInstance();
      return new Compiled(flow, className, source, hash(source));
    } catch (ReflectiveOperationException | LinkageError e) {
      throw new FlowsException(
          ErrorCode.FLOW_INVALID,
          "cannot instantiate " + className + ": " + e,
          origin,
          "give the flow class a public no-argument constructor");
    }
  }

  private static FlowsException compileError(
      String origin, List<Diagnostic<? extends JavaFileObject>> diagnostics) {
    List<String> lines = new ArrayList<>();
    String place = origin;
    for (Diagnostic<? extends JavaFileObject> d : diagnostics) {
      if (d.getKind() == Diagnostic.Kind.ERROR) {
        if (lines.isEmpty()) {
          place = origin + ":" + d.getLineNumber() + ":" + d.getColumnNumber();
        }
        lines.add("line " + d.getLineNumber() + ": " + d.getMessage(Locale.ROOT));
      }
    }
    return new FlowsException(
        ErrorCode.FLOW_INVALID,
        "does not compile: " + String.join("; ", lines),
        place,
        "fix the compile error");
  }

  private static final class MemoryClassLoader extends ClassLoader {
    private final Map<String, ByteArrayOutputStream> classes;

    MemoryClassLoader(Map<String, ByteArrayOutputStream> classes, ClassLoader parent) {
      super(parent);
      this.classes = classes;
    }

    @Override
    protected Class<?> findClass(String name) throws ClassNotFoundException {
      ByteArrayOutputStream b = classes.get(name);
      if (b == null) {
        throw new ClassNotFoundException(name);
      }
      byte[] bytes = b.toByteArray();
      return defineClass(name, bytes, 0, bytes.length);
    }
  }
}
