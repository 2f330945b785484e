package dev.flows.mcp.client;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The parameters of a {@code WWW-Authenticate: Bearer ...} challenge (RFC 6750, RFC 9728). */
record WwwAuthenticate(Map<String, String> params) {
  private static final Pattern PARAM =
      Pattern.compile("([A-Za-z0-9_\\-]+)\\s*=\\s*(?:\"((?:[^\"\\\\]|\\\\.)*)\"|([^\\s,]+))");

  static WwwAuthenticate parse(String header) {
    Map<String, String> p = new LinkedHashMap<>();
    String h = header == null ? "" : header.strip();
    if (h.toLowerCase(Locale.ROOT).startsWith("bearer")) {
      h = h.substring("bearer".length());
    }
    Matcher m = PARAM.matcher(h);
    while (m.find()) {
      String v = m.group(2) != null ? m.group(2).replaceAll("\\\\(.)", "$1") : m.group(3);
      p.putIfAbsent(m.group(1).toLowerCase(Locale.ROOT), v);
    }
    return new WwwAuthenticate(Map.copyOf(p));
  }

  Optional<String> get(String name) {
    return Optional.ofNullable(params.get(name)).filter(s -> !s.isBlank());
  }
}
