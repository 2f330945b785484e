package dev.flows.sdk.runtime;

/**
 * The order of a flow's header versions, the one rule of which version is the newest: compared by
 * their dot-separated parts, numerically where both parts are numbers ({@code "10"} after {@code
 * "9"}, {@code "1.10"} after {@code "1.9"}), else as text; a version with more parts after its
 * prefix ({@code "1.1"} after {@code "1"}).
 */
public final class FlowVersions {
  private FlowVersions() {}

  /** Whether version {@code a} is newer than {@code b}. */
  public static boolean newer(String a, String b) {
    return compare(a, b) > 0;
  }

  static int compare(String a, String b) {
    String[] x = a.split("\\.", -1);
    String[] y = b.split("\\.", -1);
    for (int i = 0; i < Math.min(x.length, y.length); i++) {
      int c = part(x[i], y[i]);
      if (c != 0) {
        return c;
      }
    }
    return Integer.compare(x.length, y.length);
  }

  private static int part(String a, String b) {
    boolean numbers = a.matches("\\d{1,18}") && b.matches("\\d{1,18}");
    return numbers ? Long.compare(Long.parseLong(a), Long.parseLong(b)) : a.compareTo(b);
  }
}
