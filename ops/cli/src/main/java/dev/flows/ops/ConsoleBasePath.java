package dev.flows.ops;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.journal.Journal;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.handler.ContextHandler;

/**
 * The path the console is served under ({@code ""}, or e.g. {@code /flows} inside a service). The
 * pages are written with root-relative URLs ({@code /runs/ID}, {@code /static/console.css}); this
 * is the one place that puts the base path in front of them, of every page's links, form actions
 * and assets, of the redirects after an action and of the session cookie's path.
 */
final class ConsoleBasePath {
  private static final Pattern WELL_FORMED = Pattern.compile("(/[A-Za-z0-9._~-]+)*");
  private static final Pattern ROOT_RELATIVE =
      Pattern.compile("(?<![\\w-])(href|src|action|data-detail|data-live-text)=\"/(?!/)");

  private ConsoleBasePath() {}

  /**
   * {@code ""} or a path of one or more segments with a leading slash and none at the end ({@code
   * flows/} reads as {@code /flows}); anything else is refused.
   */
  static String normalize(String basePath) {
    return normalize(basePath, "the console's base path");
  }

  /** As {@link #normalize(String)}, a refusal placed at {@code place}. */
  static String normalize(String basePath, String place) {
    String p = basePath == null ? "" : basePath.strip();
    if (p.equals("/")) {
      return "";
    }
    if (!p.isEmpty() && !p.startsWith("/")) {
      p = "/" + p;
    }
    if (p.endsWith("/")) {
      p = p.substring(0, p.length() - 1);
    }
    if (!WELL_FORMED.matcher(p).matches() || p.matches(".*/\\.{1,2}(/.*)?")) {
      throw new FlowsException(
          ErrorCode.CONFIG_INVALID,
          "base path " + Database.oneLine(basePath) + " is not a path",
          place,
          "give segments of letters, digits, '.', '_', '~' or '-', e.g. /flows");
    }
    return p;
  }

  /** The console's handler, inside a context at the base path when there is one. */
  static Handler handler(Journal journal, DataSource dataSource, Console.Settings settings) {
    ConsoleHandler console = new ConsoleHandler(journal, dataSource, settings.token());
    if (settings.basePath().isEmpty()) {
      return console;
    }
    ContextHandler context = new ContextHandler(console, settings.basePath());
    context.setDisplayName("flows console");
    return context;
  }

  /** The base path {@code request} came in under ({@code ""} at the root). */
  static String of(Request request) {
    String context = Request.getContextPath(request);
    return context == null || context.equals("/") ? "" : context;
  }

  /** {@code path} (root-relative, e.g. {@code /runs/ID}) under the request's base path. */
  static String url(Request request, String path) {
    return of(request) + path;
  }

  /**
   * The page with the base path in front of every root-relative link, source, form action and
   * detail URL the script fetches ({@code data-detail}).
   */
  static String page(Request request, String html) {
    String base = of(request);
    return base.isEmpty()
        ? html
        : ROOT_RELATIVE.matcher(html).replaceAll("$1=\"" + Matcher.quoteReplacement(base) + "/");
  }
}
