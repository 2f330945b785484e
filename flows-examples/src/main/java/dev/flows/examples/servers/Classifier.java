package dev.flows.examples.servers;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Deterministic support-ticket rules (no model): the category with the most keyword hits wins, ties
 * going to the earlier category; the priority is the first level whose words appear. The same text
 * always gets the same answer, which a replayed flow relies on.
 */
public final class Classifier {
  public static final List<String> CATEGORIES =
      List.of("billing", "bug", "account", "feature", "general");
  public static final List<String> PRIORITIES = List.of("low", "normal", "high", "urgent");

  private static final Map<String, List<String>> CATEGORY_WORDS = new LinkedHashMap<>();
  private static final Map<String, List<String>> PRIORITY_WORDS = new LinkedHashMap<>();

  static {
    CATEGORY_WORDS.put(
        "billing",
        List.of(
            "refund",
            "charge",
            "charged",
            "invoice",
            "payment",
            "billing",
            "credit card",
            "overcharged",
            "subscription"));
    CATEGORY_WORDS.put(
        "bug",
        List.of("error", "crash", "crashes", "bug", "broken", "exception", "fails", "not working"));
    CATEGORY_WORDS.put(
        "account",
        List.of("password", "login", "log in", "sign in", "locked", "2fa", "account", "email"));
    CATEGORY_WORDS.put(
        "feature", List.of("feature", "would be nice", "suggest", "add support", "wish"));
    PRIORITY_WORDS.put(
        "urgent", List.of("urgent", "asap", "immediately", "outage", "data loss", "down"));
    PRIORITY_WORDS.put(
        "high",
        List.of("charged twice", "double charged", "cannot", "can't", "blocked", "security"));
    PRIORITY_WORDS.put("low", List.of("question", "how do i", "wondering", "would be nice"));
  }

  private Classifier() {}

  /**
   * The answer, with the rules that matched (as {@code category:word} or {@code priority:word}).
   */
  public record Classification(String category, String priority, List<String> matched) {}

  public static Classification classify(String text) {
    String t = text.toLowerCase(Locale.ROOT);
    List<String> matched = new ArrayList<>();
    String category = "general";
    int best = 0;
    for (Map.Entry<String, List<String>> c : CATEGORY_WORDS.entrySet()) {
      int hits = 0;
      for (String w : c.getValue()) {
        if (contains(t, w)) {
          hits++;
          matched.add(c.getKey() + ":" + w);
        }
      }
      if (hits > best) {
        best = hits;
        category = c.getKey();
      }
    }
    String priority = "normal";
    for (Map.Entry<String, List<String>> p : PRIORITY_WORDS.entrySet()) {
      String hit = p.getValue().stream().filter(w -> contains(t, w)).findFirst().orElse(null);
      if (hit != null) {
        priority = p.getKey();
        matched.add("priority:" + hit);
        break;
      }
    }
    return new Classification(category, priority, List.copyOf(matched));
  }

  private static boolean contains(String text, String word) {
    return Pattern.compile("(?<![\\p{L}\\p{N}])" + Pattern.quote(word) + "(?![\\p{L}\\p{N}])")
        .matcher(text)
        .find();
  }
}
