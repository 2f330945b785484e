package dev.flows.ops;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.metrics.InstrumentType;
import io.opentelemetry.sdk.metrics.data.AggregationTemporality;
import io.opentelemetry.sdk.metrics.data.DoublePointData;
import io.opentelemetry.sdk.metrics.data.HistogramPointData;
import io.opentelemetry.sdk.metrics.data.LongPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.metrics.export.CollectionRegistration;
import io.opentelemetry.sdk.metrics.export.MetricReader;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A pull reader that renders the SDK's metrics in the Prometheus text exposition format (0.0.4), as
 * the OpenTelemetry Prometheus exporter names them: dots become underscores, the unit is a suffix
 * ({@code _seconds}), monotonic sums end in {@code _total}. Each scrape collects once.
 */
public final class PrometheusReader implements MetricReader {
  private volatile CollectionRegistration registration = CollectionRegistration.noop();

  @Override
  public void register(CollectionRegistration r) {
    registration = r;
  }

  @Override
  public AggregationTemporality getAggregationTemporality(InstrumentType type) {
    return AggregationTemporality.CUMULATIVE;
  }

  @Override
  public CompletableResultCode forceFlush() {
    return CompletableResultCode.ofSuccess();
  }

  @Override
  public CompletableResultCode shutdown() {
    return CompletableResultCode.ofSuccess();
  }

  /** Collects now and answers the text format. */
  public String scrape() {
    Map<String, MetricData> byName = new TreeMap<>();
    for (MetricData m : registration.collectAllMetrics()) {
      byName.put(m.getName(), m);
    }
    StringBuilder out = new StringBuilder();
    byName.values().forEach(m -> write(out, m));
    return out.toString();
  }

  private static void write(StringBuilder out, MetricData m) {
    String base = name(m.getName(), m.getUnit());
    switch (m.getType()) {
      case LONG_SUM -> {
        boolean counter = m.getLongSumData().isMonotonic();
        String n = counter ? base + "_total" : base;
        header(out, n, m, counter ? "counter" : "gauge");
        for (LongPointData p : m.getLongSumData().getPoints()) {
          line(out, n, p.getAttributes(), "", Long.toString(p.getValue()));
        }
      }
      case DOUBLE_SUM -> {
        boolean counter = m.getDoubleSumData().isMonotonic();
        String n = counter ? base + "_total" : base;
        header(out, n, m, counter ? "counter" : "gauge");
        for (DoublePointData p : m.getDoubleSumData().getPoints()) {
          line(out, n, p.getAttributes(), "", number(p.getValue()));
        }
      }
      case LONG_GAUGE -> {
        header(out, base, m, "gauge");
        for (LongPointData p : m.getLongGaugeData().getPoints()) {
          line(out, base, p.getAttributes(), "", Long.toString(p.getValue()));
        }
      }
      case DOUBLE_GAUGE -> {
        header(out, base, m, "gauge");
        for (DoublePointData p : m.getDoubleGaugeData().getPoints()) {
          line(out, base, p.getAttributes(), "", number(p.getValue()));
        }
      }
      case HISTOGRAM -> {
        header(out, base, m, "histogram");
        for (HistogramPointData p : m.getHistogramData().getPoints()) {
          List<Double> bounds = p.getBoundaries();
          List<Long> counts = p.getCounts();
          long cumulative = 0;
          for (int i = 0; i < counts.size(); i++) {
            cumulative += counts.get(i);
            String le = i < bounds.size() ? number(bounds.get(i)) : "+Inf";
            line(out, base + "_bucket", p.getAttributes(), le, Long.toString(cumulative));
          }
          line(out, base + "_sum", p.getAttributes(), "", number(p.getSum()));
          line(out, base + "_count", p.getAttributes(), "", Long.toString(p.getCount()));
        }
      }
      case EXPONENTIAL_HISTOGRAM, SUMMARY -> {
        // flows records neither.
      }
    }
  }

  private static void header(StringBuilder out, String name, MetricData m, String type) {
    out.append("# HELP ").append(name).append(' ').append(escape(m.getDescription(), false));
    out.append('\n').append("# TYPE ").append(name).append(' ').append(type).append('\n');
  }

  private static void line(StringBuilder out, String name, Attributes a, String le, String value) {
    out.append(name);
    Map<String, String> labels = new TreeMap<>();
    a.forEach((AttributeKey<?> k, Object v) -> labels.put(sanitize(k.getKey()), String.valueOf(v)));
    if (!le.isEmpty()) {
      labels.put("le", le);
    }
    if (!labels.isEmpty()) {
      out.append('{');
      boolean first = true;
      for (var e : labels.entrySet()) {
        if (!first) {
          out.append(',');
        }
        first = false;
        out.append(e.getKey()).append("=\"").append(escape(e.getValue(), true)).append('"');
      }
      out.append('}');
    }
    out.append(' ').append(value).append('\n');
  }

  static String name(String otelName, String unit) {
    String n = sanitize(otelName);
    String suffix =
        switch (unit) {
          case "s" -> "seconds";
          case "ms" -> "milliseconds";
          case "By" -> "bytes";
          default -> "";
        };
    return suffix.isEmpty() || n.endsWith("_" + suffix) ? n : n + "_" + suffix;
  }

  private static String sanitize(String s) {
    return s.replaceAll("[^a-zA-Z0-9_:]", "_");
  }

  private static String number(double d) {
    if (d == Math.rint(d) && !Double.isInfinite(d) && Math.abs(d) < 1e15) {
      return Long.toString((long) d) + ".0";
    }
    return Double.toString(d);
  }

  private static String escape(String s, boolean quotes) {
    String e = s.replace("\\", "\\\\").replace("\n", "\\n");
    return quotes ? e.replace("\"", "\\\"") : e;
  }
}
