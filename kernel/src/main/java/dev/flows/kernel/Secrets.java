package dev.flows.kernel;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The one place that masks secrets in text meant for a human, a log or a JSON document: every
 * database URL form ({@code password=} query parameters of a JDBC URL, the {@code user:password@}
 * of a {@code postgres://}, {@code postgresql://} or any other {@code scheme://} URL), each secret
 * known by value (such as {@code PGPASSWORD}), raw or URL-encoded, and each sealed secret value
 * ({@link dev.flows.kernel.keys.SecretKeys}).
 */
public final class Secrets {
  public static final String MASK = "***";

  // A query or property parameter whose name ends in "password" (password, sslpassword, ...).
  // Closing parentheses right before the value's end belong to the text around the URL ("(at
  // jdbc:...&password=x)"), so they are kept; one inside the value is masked with it.
  private static final Pattern PASSWORD_PARAMETER =
      Pattern.compile("(?i)([?&;][^&#;=\\s\"']*password=)[^&#;\\s\"']*?(?=\\)*(?:[&#;\\s\"']|$))");
  // scheme://user:password@ (the password may not hold '@', '/' or a blank unless URL-encoded).
  private static final Pattern USER_INFO =
      Pattern.compile("(?i)\\b([a-z][a-z0-9+.-]*://[^:/@\\s\"']*):[^@/\\s\"']*@");

  private Secrets() {}

  /** {@code text} with every URL-borne password masked. */
  public static String redact(String text) {
    return redact(text, List.of());
  }

  /** {@code text} with every URL-borne password and each of {@code known} masked. */
  public static String redact(String text, Collection<String> known) {
    if (text == null || text.isEmpty()) {
      return text == null ? "" : text;
    }
    String out = dev.flows.kernel.keys.SecretKeys.maskText(text);
    out = PASSWORD_PARAMETER.matcher(out).replaceAll("$1" + MASK);
    out = USER_INFO.matcher(out).replaceAll("$1:" + MASK + "@");
    for (String secret : known) {
      if (secret == null || secret.isBlank()) {
        continue;
      }
      out = out.replace(secret, MASK);
      String encoded = URLEncoder.encode(secret, StandardCharsets.UTF_8);
      if (!encoded.equals(secret)) {
        out = out.replace(encoded, MASK);
      }
    }
    return out;
  }
}
