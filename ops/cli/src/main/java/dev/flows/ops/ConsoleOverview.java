package dev.flows.ops;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The list page's live overview: per bucket of a window, runs started, succeeded, failed, parked
 * and waiting; per flow, the p50 and p99 duration of the runs that ended in it. Computed by SQL
 * over {@code flows.run_activity} ({@code overview-*.sql}), drawn as server-side SVG.
 */
final class ConsoleOverview {
  private static final String BUCKETS = sql("overview-buckets.sql");
  private static final String DURATIONS = sql("overview-durations.sql");

  /** The windows one can choose, each with a bucket that gives it 60 to 84 bars. */
  enum Window {
    HOUR("1h", Duration.ofHours(1), Duration.ofMinutes(1), "minute"),
    SIX_HOURS("6h", Duration.ofHours(6), Duration.ofMinutes(5), "5 minutes"),
    DAY("24h", Duration.ofHours(24), Duration.ofMinutes(20), "20 minutes"),
    WEEK("7d", Duration.ofDays(7), Duration.ofHours(2), "2 hours");

    final String wire;
    final Duration span;
    final Duration bucket;
    final String per;

    Window(String wire, Duration span, Duration bucket, String per) {
      this.wire = wire;
      this.span = span;
      this.bucket = bucket;
      this.per = per;
    }

    int buckets() {
      return (int) (span.toSeconds() / bucket.toSeconds());
    }

    /** The window named {@code wire}; the default (the last hour) when none is. */
    static Window of(Optional<String> wire) {
      if (wire.isEmpty()) {
        return HOUR;
      }
      for (Window w : values()) {
        if (w.wire.equals(wire.get())) {
          return w;
        }
      }
      throw new FlowsException(
          ErrorCode.INVALID_INPUT,
          "unknown window " + wire.get(),
          "window",
          "use 1h, 6h, 24h or 7d");
    }
  }

  /** One bar group: what started or ended from {@code at} for one bucket. */
  record Bucket(Instant at, long started, long succeeded, long failed, long parked, long waiting) {}

  /** A flow's runs ended in the window and their duration percentiles, in milliseconds. */
  record FlowTimes(String flow, long ended, double p50, double p99) {}

  /** The overview of a window ending {@code now}. */
  record Overview(Window window, Instant since, List<Bucket> buckets, List<FlowTimes> flows) {}

  /** Which runs the overview counts: the list's flow and queue filters, children or not. */
  record Scope(Optional<String> flow, Optional<String> queue, boolean all) {}

  private ConsoleOverview() {}

  static Overview read(Connection c, Window w, Scope scope, Instant now) throws SQLException {
    long step = w.bucket.toSeconds();
    // Bucket edges on whole multiples of the bucket, so a bar holds still between refreshes.
    Instant since =
        Instant.ofEpochSecond((now.getEpochSecond() / step + 1) * step - w.span.toSeconds());
    long[][] counts = new long[w.buckets()][5];
    try (PreparedStatement ps = prepared(c, BUCKETS, since, step, scope);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        int i = rs.getInt(1);
        if (i >= 0 && i < counts.length) {
          for (int k = 0; k < 5; k++) {
            counts[i][k] = rs.getLong(k + 2);
          }
        }
      }
    }
    List<Bucket> buckets = new ArrayList<>(counts.length);
    for (int i = 0; i < counts.length; i++) {
      long[] n = counts[i];
      buckets.add(new Bucket(since.plusSeconds(i * step), n[0], n[1], n[2], n[3], n[4]));
    }
    List<FlowTimes> flows = new ArrayList<>();
    try (PreparedStatement ps = prepared(c, DURATIONS, since, step, scope);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        flows.add(new FlowTimes(rs.getString(1), rs.getLong(2), rs.getDouble(3), rs.getDouble(4)));
      }
    }
    return new Overview(w, since, buckets, flows);
  }

  private static PreparedStatement prepared(
      Connection c, String sql, Instant since, long step, Scope scope) throws SQLException {
    PreparedStatement ps = c.prepareStatement(sql);
    ps.setTimestamp(1, Timestamp.from(since));
    ps.setDouble(2, step);
    ps.setString(3, scope.flow().orElse(null));
    ps.setString(4, scope.queue().orElse(null));
    ps.setBoolean(5, scope.all());
    // The window's start again for each range the statement reads by index.
    for (int i = 6; i <= ps.getParameterMetaData().getParameterCount(); i++) {
      ps.setTimestamp(i, Timestamp.from(since));
    }
    return ps;
  }

  static String sql(String name) {
    try (InputStream in = ConsoleOverview.class.getResourceAsStream("console/" + name)) {
      if (in == null) {
        throw new IllegalStateException("the console's statement " + name + " is not in the jar");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The overview as HTML: the window picker's state, the per-bucket chart, the per-flow table. */
  static String render(Overview o) {
    StringBuilder b = new StringBuilder("<section id=\"overview\" data-window=\"");
    b.append(o.window().wire).append("\"><h2>Last ").append(o.window().wire).append("</h2>");
    b.append(chart(o));
    b.append("<table id=\"durations\"><thead><tr><th>flow</th><th>ended</th><th>p50</th>")
        .append("<th>p99</th></tr></thead><tbody>");
    if (o.flows().isEmpty()) {
      b.append("<tr><td colspan=\"4\" class=\"empty\">no run ended in the window</td></tr>");
    }
    for (FlowTimes f : o.flows()) {
      b.append("<tr data-flow=\"")
          .append(ConsolePages.esc(f.flow()))
          .append("\" data-ended=\"")
          .append(f.ended())
          .append("\"><td>")
          .append(ConsolePages.esc(f.flow()))
          .append("</td><td>")
          .append(f.ended())
          .append("</td><td>")
          .append(ConsolePages.took(Duration.ofMillis(Math.round(f.p50()))))
          .append("</td><td>")
          .append(ConsolePages.took(Duration.ofMillis(Math.round(f.p99()))))
          .append("</td></tr>");
    }
    return b.append("</tbody></table></section>").toString();
  }

  private static final String[] SERIES = {"started", "succeeded", "failed", "parked", "waiting"};
  private static final int BAR_W = 10;
  private static final int HEIGHT = 120;

  /**
   * Bars per bucket, one per series side by side in the bucket's slot, each with its count in
   * {@code data-*} attributes and a {@code <title>} for hovering; heights scale to the largest.
   */
  private static String chart(Overview o) {
    long max = 1;
    for (Bucket k : o.buckets()) {
      for (long n : counts(k)) {
        max = Math.max(max, n);
      }
    }
    int slot = BAR_W * SERIES.length + 4;
    int width = slot * o.buckets().size();
    StringBuilder b =
        new StringBuilder("<figure class=\"chart\"><svg id=\"activity\" role=\"img\"");
    b.append(" viewBox=\"0 0 ").append(width).append(' ').append(HEIGHT + 2).append('"');
    b.append(" preserveAspectRatio=\"none\" data-max=\"").append(max).append("\">");
    for (int i = 0; i < o.buckets().size(); i++) {
      Bucket k = o.buckets().get(i);
      long[] n = counts(k);
      b.append("<g class=\"bucket\" data-at=\"").append(k.at());
      for (int s = 0; s < SERIES.length; s++) {
        b.append("\" data-").append(SERIES[s]).append("=\"").append(n[s]);
      }
      b.append("\"><title>").append(k.at());
      for (int s = 0; s < SERIES.length; s++) {
        b.append(s == 0 ? ": " : ", ").append(n[s]).append(' ').append(SERIES[s]);
      }
      b.append("</title>");
      for (int s = 0; s < SERIES.length; s++) {
        long h = n[s] == 0 ? 0 : Math.max(1, n[s] * HEIGHT / max);
        b.append(
            String.format(
                Locale.ROOT,
                "<rect class=\"bar bar-%s\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>",
                SERIES[s],
                i * slot + s * BAR_W,
                HEIGHT - h,
                BAR_W - 1,
                h));
      }
      b.append("</g>");
    }
    b.append("</svg><figcaption>");
    for (String s : SERIES) {
      b.append("<span class=\"key bar-").append(s).append("\">").append(s).append("</span> ");
    }
    return b.append("per ")
        .append(o.window().per)
        .append(" from <time datetime=\"")
        .append(o.since())
        .append("\">")
        .append(o.since())
        .append("</time></figcaption></figure>")
        .toString();
  }

  private static long[] counts(Bucket k) {
    return new long[] {k.started(), k.succeeded(), k.failed(), k.parked(), k.waiting()};
  }
}
