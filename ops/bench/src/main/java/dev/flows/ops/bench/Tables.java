package dev.flows.ops.bench;

import java.util.Locale;

/** Markdown table rows and the number formats of the report's cells ("n/a" for no number). */
final class Tables {
  static final long MIB = 1 << 20;

  private Tables() {}

  static String f0(double v) {
    return Double.isNaN(v) ? "n/a" : String.format(Locale.ROOT, "%,.0f", v);
  }

  static String f1(double v) {
    return Double.isNaN(v) ? "n/a" : String.format(Locale.ROOT, "%,.1f", v);
  }

  static String f3(double v) {
    return Double.isNaN(v) || Double.isInfinite(v) ? "n/a" : String.format(Locale.ROOT, "%.3f", v);
  }

  static String f2(double v) {
    return Double.isNaN(v) || Double.isInfinite(v) ? "n/a" : String.format(Locale.ROOT, "%.2f", v);
  }

  static String row(String... cells) {
    return "| " + String.join(" | ", cells) + " |\n";
  }

  static String header(String... cells) {
    StringBuilder sb = new StringBuilder(row(cells)).append('|');
    for (int i = 0; i < cells.length; i++) {
      sb.append("---|");
    }
    return sb.append('\n').toString();
  }
}
