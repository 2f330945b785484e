package dev.flows.sdk.config;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.journal.PayloadLimits;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;

/**
 * flows.json's top-level {@code "limits"}: the payload limits every process reading the file opens
 * its journal and worker with ({@code {"limits": {"maxRunInputBytes": 1048576}}}); a limit not
 * named keeps its default. A value that is not a whole byte count from {@link
 * PayloadLimits#MIN_BYTES} to {@link PayloadLimits#MAX_BYTES}, or an unknown key, is refused {@code
 * config_invalid} with its pointer, as the rest of the file is.
 */
final class LimitEntries {
  private LimitEntries() {}

  private static final Map<String, BiFunction<PayloadLimits, Long, PayloadLimits>> KEYS = keys();

  private static Map<String, BiFunction<PayloadLimits, Long, PayloadLimits>> keys() {
    Map<String, BiFunction<PayloadLimits, Long, PayloadLimits>> k = new LinkedHashMap<>();
    k.put("maxRunInputBytes", PayloadLimits::withMaxRunInputBytes);
    k.put("maxSignalBytes", PayloadLimits::withMaxSignalBytes);
    k.put("maxAnswerBytes", PayloadLimits::withMaxAnswerBytes);
    k.put("maxStepOutputBytes", PayloadLimits::withMaxStepOutputBytes);
    k.put("maxReceiptBytes", PayloadLimits::withMaxReceiptBytes);
    return k;
  }

  static PayloadLimits parse(FlowsConfigLoader.Walker w, JsonNode limits) {
    if (limits.isMissingNode()) {
      return PayloadLimits.DEFAULTS;
    }
    w.object(limits, "/limits");
    w.onlyKeys(limits, "/limits", Set.copyOf(KEYS.keySet()));
    PayloadLimits out = PayloadLimits.DEFAULTS;
    for (Map.Entry<String, BiFunction<PayloadLimits, Long, PayloadLimits>> e : KEYS.entrySet()) {
      JsonNode n = limits.path(e.getKey());
      if (n.isMissingNode()) {
        continue;
      }
      if (!n.isIntegralNumber()
          || !n.canConvertToLong()
          || n.asLong() < PayloadLimits.MIN_BYTES
          || n.asLong() > PayloadLimits.MAX_BYTES) {
        throw w.refuse(
            "/limits/" + e.getKey(),
            "is not a byte count from "
                + PayloadLimits.MIN_BYTES
                + " to "
                + PayloadLimits.MAX_BYTES,
            "give the largest payload in bytes, e.g. "
                + PayloadLimits.DEFAULT_MAX_BYTES
                + " (the default)");
      }
      out = e.getValue().apply(out, n.asLong());
    }
    return out;
  }
}
