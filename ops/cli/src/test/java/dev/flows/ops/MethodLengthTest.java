package dev.flows.ops;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * No method (or constructor) of the tree's main code is over {@value #MAX_LINES} lines, from the
 * line that names it to its closing brace: a longer one does more than one thing and is split by
 * what it does. The sources are scanned, not compiled: comments and literals are blanked, then each
 * brace that follows a parameter list (and its throws clause) opens a method body.
 */
class MethodLengthTest {
  private static final Path ROOT = Launcher.repoRoot();
  static final int MAX_LINES = 60;

  /** A method: its name and the lines it spans. */
  record Method(String name, int firstLine, int lastLine) {
    int lines() {
      return lastLine - firstLine + 1;
    }
  }

  private static final Set<String> NOT_A_NAME =
      Set.of(
          "if",
          "for",
          "while",
          "switch",
          "catch",
          "synchronized",
          "try",
          "return",
          "new",
          "throw",
          "else",
          "do",
          "assert",
          "yield",
          "case",
          "record",
          "class",
          "interface",
          "enum");

  private static final Pattern THROWS = Pattern.compile("\\)\\s*throws\\s+[\\w.,\\s<>?]+$");

  /** Every method of {@code source} with its extent. */
  static List<Method> methods(String source) {
    String code = blanked(source);
    List<Method> found = new ArrayList<>();
    Deque<Optional<Method>> open = new ArrayDeque<>();
    int line = 1;
    for (int i = 0; i < code.length(); i++) {
      char c = code.charAt(i);
      if (c == '\n') {
        line++;
      } else if (c == '{') {
        open.push(header(code, i));
      } else if (c == '}' && !open.isEmpty()) {
        int last = line;
        open.pop().ifPresent(m -> found.add(new Method(m.name(), m.firstLine(), last)));
      }
    }
    return found;
  }

  /** The method whose body opens at {@code brace} (its last line unknown yet), if it is one. */
  private static Optional<Method> header(String code, int brace) {
    int end = skipSpaceBack(code, brace - 1);
    if (end < 0) {
      return Optional.empty();
    }
    int close = end;
    if (code.charAt(end) != ')') {
      int from = Math.max(0, end - 300);
      Matcher m = THROWS.matcher(code.substring(from, end + 1));
      if (!m.find()) {
        return Optional.empty();
      }
      close = from + m.start();
    }
    int paren = openingParen(code, close);
    if (paren < 0) {
      return Optional.empty();
    }
    int nameEnd = skipSpaceBack(code, paren - 1) + 1;
    int nameStart = wordStart(code, nameEnd);
    String name = code.substring(nameStart, nameEnd);
    if (name.isEmpty()
        || !Character.isJavaIdentifierStart(name.charAt(0))
        || NOT_A_NAME.contains(name)) {
      return Optional.empty();
    }
    int before = skipSpaceBack(code, nameStart - 1);
    if (before < 0) {
      return Optional.empty();
    }
    char b = code.charAt(before);
    String word = code.substring(wordStart(code, before + 1), before + 1);
    // After a type or modifier, or first in a class body (a package-private constructor).
    boolean declared = Character.isJavaIdentifierPart(b) || "]>{};".indexOf(b) >= 0;
    if (!declared || NOT_A_NAME.contains(word)) {
      return Optional.empty();
    }
    return Optional.of(new Method(name, lineOf(code, nameStart), -1));
  }

  private static int openingParen(String code, int close) {
    int depth = 0;
    for (int k = close; k >= 0; k--) {
      char c = code.charAt(k);
      if (c == ')') {
        depth++;
      } else if (c == '(' && --depth == 0) {
        return k;
      }
    }
    return -1;
  }

  private static int skipSpaceBack(String code, int from) {
    int k = from;
    while (k >= 0 && Character.isWhitespace(code.charAt(k))) {
      k--;
    }
    return k;
  }

  private static int wordStart(String code, int end) {
    int k = end;
    while (k > 0 && Character.isJavaIdentifierPart(code.charAt(k - 1))) {
      k--;
    }
    return k;
  }

  private static int lineOf(String code, int at) {
    int line = 1;
    for (int k = 0; k < at; k++) {
      if (code.charAt(k) == '\n') {
        line++;
      }
    }
    return line;
  }

  /** {@code source} with comments, strings, characters and text blocks blanked, lines kept. */
  static String blanked(String source) {
    StringBuilder b = new StringBuilder(source);
    int i = 0;
    int n = source.length();
    while (i < n) {
      int end = literalEnd(source, i);
      for (int k = i; k < end; k++) {
        if (b.charAt(k) != '\n') {
          b.setCharAt(k, ' ');
        }
      }
      i = Math.max(end, i + 1);
    }
    return b.toString();
  }

  /** Where the comment or literal starting at {@code i} ends ({@code i} when none starts there). */
  private static int literalEnd(String s, int i) {
    if (s.startsWith("//", i)) {
      int e = s.indexOf('\n', i);
      return e < 0 ? s.length() : e;
    }
    if (s.startsWith("/*", i)) {
      int e = s.indexOf("*/", i + 2);
      return e < 0 ? s.length() : e + 2;
    }
    if (s.startsWith("\"\"\"", i)) {
      int e = s.indexOf("\"\"\"", i + 3);
      while (e > 0 && s.charAt(e - 1) == '\\') {
        e = s.indexOf("\"\"\"", e + 1);
      }
      return e < 0 ? s.length() : e + 3;
    }
    char c = s.charAt(i);
    if (c != '"' && c != '\'') {
      return i;
    }
    int e = i + 1;
    while (e < s.length() && s.charAt(e) != c) {
      e += s.charAt(e) == '\\' ? 2 : 1;
    }
    return Math.min(s.length(), e + 1);
  }

  /** {@code Class#method} of every main method under {@code root} over the limit. */
  static Set<String> overLong(Path root) throws IOException {
    Set<String> found = new TreeSet<>();
    for (Path f : MainSources.under(root)) {
      String type = f.getFileName().toString().replaceFirst("\\.java$", "");
      for (Method m : methods(Files.readString(f))) {
        if (m.lines() > MAX_LINES) {
          found.add(type + "#" + m.name());
        }
      }
    }
    return found;
  }

  @Test
  void noMainMethodIsOverSixtyLines() throws IOException {
    Set<String> found = new TreeSet<>(overLong(ROOT));
    assertThat(found).as("methods over " + MAX_LINES + " lines: split them").isEmpty();
  }

  @Test
  void theScanMeasuresMethodsAndConstructorsAndSkipsLambdasBlocksAndLiterals() {
    String body = "    x();\n".repeat(MAX_LINES);
    String source =
        "class A {\n"
            + "  A(int a) throws Exception {\n"
            + body
            + "  }\n"
            + "  static <T> java.util.List<T> make(String s) {\n"
            + "    String t = \"}{\"; char c = '{'; // }\n"
            + "    Runnable r = () -> {\n"
            + body
            + "    };\n"
            + "    if (s.isEmpty()) {\n"
            + "    }\n"
            + "    return new java.util.ArrayList<>() {\n"
            + "      int size(int x) { return x; }\n"
            + "    };\n"
            + "  }\n"
            + "  void fits() {}\n"
            + "}\n";
    List<Method> methods = methods(source);
    assertThat(methods)
        .extracting(Method::name)
        .containsExactlyInAnyOrder("A", "size", "make", "fits");
    assertThat(methods)
        .filteredOn(m -> m.lines() > MAX_LINES)
        .extracting(Method::name)
        .containsExactlyInAnyOrder("A", "make");
    assertThat(methods)
        .filteredOn(m -> m.name().equals("A"))
        .first()
        .extracting(Method::lines)
        .isEqualTo(MAX_LINES + 2);
  }
}
