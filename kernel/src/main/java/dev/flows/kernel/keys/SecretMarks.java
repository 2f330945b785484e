package dev.flows.kernel.keys;

import java.util.LinkedHashSet;
import java.util.List;

/**
 * The parts of one tool's call marked secret, as JSON pointers: into its {@code arguments}, and
 * into its {@code result} (the receipt's {@code output}: {@code {content, structuredContent,
 * isError}}). Each pointer is checked ({@link SecretKeys#pointer}) when it is marked.
 */
public record SecretMarks(List<String> arguments, List<String> result) {
  public static final SecretMarks NONE = new SecretMarks(List.of(), List.of());

  public SecretMarks {
    arguments = List.copyOf(new LinkedHashSet<>(arguments));
    result = List.copyOf(new LinkedHashSet<>(result));
  }

  /**
   * These marks and the argument at {@code pointer}; refused {@code invalid_input} at {@code
   * place}.
   */
  public SecretMarks argument(String pointer, String place) {
    SecretKeys.pointer(pointer, place);
    return new SecretMarks(plus(arguments, List.of(pointer)), result);
  }

  /** These marks and the result part at {@code pointer}; refused as {@link #argument} is. */
  public SecretMarks resultPart(String pointer, String place) {
    SecretKeys.pointer(pointer, place);
    return new SecretMarks(arguments, plus(result, List.of(pointer)));
  }

  /** Both marks at once. */
  public SecretMarks and(SecretMarks other) {
    return new SecretMarks(plus(arguments, other.arguments), plus(result, other.result));
  }

  public boolean isEmpty() {
    return arguments.isEmpty() && result.isEmpty();
  }

  private static List<String> plus(List<String> a, List<String> b) {
    LinkedHashSet<String> all = new LinkedHashSet<>(a);
    all.addAll(b);
    return List.copyOf(all);
  }
}
