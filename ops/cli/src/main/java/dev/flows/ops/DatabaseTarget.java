package dev.flows.ops;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.Secrets;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Which database a command talks to: a server the user named, or the embedded default. */
sealed interface DatabaseTarget {
  String URL_VARIABLE = "FLOWS_DATABASE_URL";

  /**
   * A server named by {@code --db} or {@code FLOWS_DATABASE_URL}.
   *
   * @param jdbcUrl without user or password
   * @param source where the URL came from ({@code --db} or the variable), for refusals
   */
  record External(String jdbcUrl, Optional<String> user, Optional<String> password, String source)
      implements DatabaseTarget {
    @Override
    public String describe() {
      return Secrets.redact(jdbcUrl) + user.map(u -> " as " + u).orElse("");
    }
  }

  /** The embedded server under {@code $FLOWS_HOME/pg}. */
  record Embedded(Path flowsHome) implements DatabaseTarget {
    @Override
    public String describe() {
      return "embedded PostgreSQL at " + flowsHome.resolve("pg");
    }
  }

  /** For humans: where the data is (never the password). */
  String describe();

  /**
   * Every password this invocation may hold, by value, so that output can mask it wherever it shows
   * up: {@code PGPASSWORD}, and the password of each {@code --db} word and of {@code
   * FLOWS_DATABASE_URL} (in the user info or a {@code password=} parameter, raw and decoded).
   */
  static List<String> secrets(String[] args, Map<String, String> env) {
    List<String> urls = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--db") && i + 1 < args.length) {
        urls.add(args[i + 1]);
      } else if (args[i].startsWith("--db=")) {
        urls.add(args[i].substring("--db=".length()));
      }
    }
    Optional.ofNullable(env.get(URL_VARIABLE)).ifPresent(urls::add);
    List<String> found = new ArrayList<>();
    Optional.ofNullable(env.get("PGPASSWORD")).ifPresent(found::add);
    for (String url : urls) {
      Matcher m = PASSWORD_PARAMETER.matcher(url);
      while (m.find()) {
        found.add(m.group(1));
        found.add(decode(m.group(1)));
      }
      try {
        parse(url.strip(), "--db", Map.of()).password().ifPresent(found::add);
      } catch (FlowsException | IllegalArgumentException e) {
        // Not a URL flows accepts: the refusal names only its scheme, and the patterns mask it.
      }
    }
    return found.stream().filter(s -> !s.isBlank()).distinct().toList();
  }

  /** The value of a {@code password=} parameter of a URL. */
  Pattern PASSWORD_PARAMETER = Pattern.compile("(?i)[?&;]password=([^&#;]*)");

  /** {@code --db} first, then {@code FLOWS_DATABASE_URL}, then the embedded default. */
  static DatabaseTarget resolve(Optional<String> dbOption, Map<String, String> env, Path home) {
    if (dbOption.isPresent() && !dbOption.get().isBlank()) {
      return parse(dbOption.get().strip(), "--db", env);
    }
    String fromEnv = env.get(URL_VARIABLE);
    if (fromEnv != null && !fromEnv.isBlank()) {
      return parse(fromEnv.strip(), URL_VARIABLE, env);
    }
    return new Embedded(home);
  }

  /**
   * Accepts {@code jdbc:postgresql://host[:port]/db[?params]} (user and password may be query
   * parameters) and libpq-style {@code postgres[ql]://[user[:password]@]host[:port]/db[?params]}.
   * {@code PGUSER} / {@code PGPASSWORD} fill in what the URL leaves out.
   */
  static External parse(String url, String source, Map<String, String> env) {
    Optional<String> envUser = Optional.ofNullable(env.get("PGUSER")).filter(s -> !s.isBlank());
    Optional<String> envPassword = Optional.ofNullable(env.get("PGPASSWORD"));
    if (url.startsWith("jdbc:postgresql:")) {
      boolean userInQuery = url.contains("user=");
      boolean passwordInQuery = url.contains("password=");
      return new External(
          url,
          userInQuery ? Optional.empty() : envUser,
          passwordInQuery ? Optional.empty() : envPassword,
          source);
    }
    if (url.startsWith("postgres://") || url.startsWith("postgresql://")) {
      URI u;
      try {
        u = new URI(url);
      } catch (URISyntaxException e) {
        throw refused(source, "malformed database URL: " + e.getReason());
      }
      if (u.getHost() == null || u.getHost().isBlank()) {
        throw refused(source, "the database URL names no host");
      }
      String path = u.getRawPath() == null || u.getRawPath().isEmpty() ? "/" : u.getRawPath();
      String query = u.getRawQuery() == null ? "" : "?" + u.getRawQuery();
      String port = u.getPort() > 0 ? ":" + u.getPort() : "";
      String jdbc = "jdbc:postgresql://" + u.getHost() + port + path + query;
      Optional<String> user = envUser;
      Optional<String> password = envPassword;
      String info = u.getRawUserInfo();
      if (info != null && !info.isEmpty()) {
        int colon = info.indexOf(':');
        user = Optional.of(decode(colon < 0 ? info : info.substring(0, colon)));
        if (colon >= 0) {
          password = Optional.of(decode(info.substring(colon + 1)));
        }
      }
      return new External(jdbc, user, password, source);
    }
    throw refused(source, "unsupported database URL (" + scheme(url) + ")");
  }

  private static String decode(String s) {
    return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
  }

  private static String scheme(String url) {
    int colon = url.indexOf(':');
    return colon < 0 ? "no scheme" : "scheme " + url.substring(0, colon);
  }

  private static FlowsException refused(String source, String message) {
    return new FlowsException(
        ErrorCode.INVALID_INPUT,
        message,
        source,
        "use jdbc:postgresql://HOST:PORT/DB or postgres://USER:PASSWORD@HOST:PORT/DB");
  }
}
