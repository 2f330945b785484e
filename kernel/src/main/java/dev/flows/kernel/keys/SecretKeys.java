package dev.flows.kernel.keys;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.Secrets;
import dev.flows.kernel.json.Jackson;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import java.util.regex.Pattern;
import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * The keys secret values are journaled under, and the one place that seals, opens and masks them. A
 * sealed value is the JSON string {@code flows:secret:v1:<keyId>:<base64url(nonce ‖ ciphertext)>}:
 * the value's JSON text under AES-256-GCM (the JDK's), the key id authenticated with it. The nonce
 * is an HMAC-SHA256 (a keyed hash) of the value under a key derived from the same secret key, so a
 * value seals to the same bytes every time: a replayed body's call spec hashes as the journaled one
 * did, and two sealed values are equal only when the values are (which is all a keyed hash would
 * tell, and nothing more).
 *
 * <p>Keys are 256 bits, read from environment variables whose names flows.json gives ({@code
 * "secrets": {"keyEnv", "oldKeyEnvs"}}): the first {@code keyEnv} declared seals, every declared
 * one opens (found by the key id each sealed value names), so rotating is: the new key in {@code
 * keyEnv}, the old one's variable listed in {@code oldKeyEnvs} until no open run holds a value
 * sealed under it.
 */
public final class SecretKeys {
  /** What every sealed value starts with. */
  public static final String PREFIX = "flows:secret:v1:";

  private static final Pattern SEALED =
      Pattern.compile(Pattern.quote(PREFIX) + "[0-9a-f]{16}:[A-Za-z0-9_-]+");
  private static final int KEY_BYTES = 32;
  private static final int NONCE_BYTES = 12;
  private static final int TAG_BITS = 128;
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  private final Function<String, Optional<String>> env;
  private final List<String> keyEnvs = new CopyOnWriteArrayList<>();

  /** No key declared yet; values of variables are read through {@code env}. */
  public SecretKeys(Function<String, Optional<String>> env) {
    this.env = env;
  }

  /**
   * Declares a flows.json's keys: {@code keyEnv} seals unless one was declared before; it and each
   * of {@code oldKeyEnvs} open.
   */
  public SecretKeys declare(String keyEnv, List<String> oldKeyEnvs) {
    add(keyEnv);
    oldKeyEnvs.forEach(this::add);
    return this;
  }

  private synchronized void add(String name) {
    if (!keyEnvs.contains(name)) {
      keyEnvs.add(name);
    }
  }

  /** A keyring with no key: opens nothing sealed, seals nothing. */
  public static SecretKeys none() {
    return new SecretKeys(name -> Optional.empty());
  }

  /** Whether {@code text} is a sealed value. */
  public static boolean isSealed(String text) {
    return text.startsWith(PREFIX) && SEALED.matcher(text).matches();
  }

  /** {@code text} with every sealed value in it replaced by {@link Secrets#MASK}. */
  public static String maskText(String text) {
    return text.contains(PREFIX) ? SEALED.matcher(text).replaceAll(Secrets.MASK) : text;
  }

  /**
   * {@code doc} with every sealed value replaced by {@link Secrets#MASK}; {@code doc} unchanged.
   */
  public static JsonNode mask(JsonNode doc) {
    if (!doc.toString().contains(PREFIX)) {
      return doc;
    }
    // A message that quotes a sealed value has it masked in place too.
    return replace(doc.deepCopy(), s -> s.contains(PREFIX), s -> JSON.textNode(maskText(s)));
  }

  /**
   * Refuses ({@code invalid_input} at {@code place}) a pointer that is not an RFC 6901 JSON pointer
   * to a part of the document ({@code ""}, the whole, is refused too).
   */
  public static JsonPointer pointer(String pointer, String place) {
    if (pointer == null || pointer.isEmpty() || !pointer.startsWith("/")) {
      throw new FlowsException(
          ErrorCode.INVALID_INPUT,
          "a secret must be marked by a JSON pointer to a part of the value, got '" + pointer + "'",
          place,
          "give an RFC 6901 pointer such as /card/number");
    }
    return JsonPointer.compile(pointer);
  }

  /**
   * {@code doc} with the value at each of {@code pointers} sealed under the current key; pointers
   * that point at nothing are skipped, values sealed already are kept. {@code doc} is unchanged.
   *
   * @throws FlowsException {@code secret_key_missing} when a value is to be sealed and no key is
   *     declared or its variable is unset
   */
  public JsonNode seal(JsonNode doc, List<String> pointers, String place) {
    return seal(doc, pointers, List.of(), place);
  }

  /**
   * As above, sealing under the key in {@code keyEnvs}' first variable (a run's frozen names) when
   * it names any, else under the first declared.
   */
  public JsonNode seal(JsonNode doc, List<String> pointers, List<String> keyEnvs, String place) {
    JsonNode out = doc;
    for (String p : pointers) {
      JsonPointer ptr = pointer(p, place);
      JsonNode value = out.at(ptr);
      if (value.isMissingNode() || (value.isTextual() && isSealed(value.asText()))) {
        continue;
      }
      if (out == doc) {
        out = doc.deepCopy();
      }
      Key key = current(keyEnvs, place);
      put(out.at(ptr.head()), ptr.last(), JSON.textNode(key.seal(value.toString())));
    }
    return out;
  }

  /**
   * {@code doc} with every sealed value opened: what a call is made with, never journaled.
   *
   * @throws FlowsException {@code secret_key_missing} when no declared key has a value's key id
   */
  public JsonNode open(JsonNode doc, String place) {
    return open(doc, List.of(), place);
  }

  /** As above, with the keys in {@code keyEnvs} (a run's frozen names) as well as the declared. */
  public JsonNode open(JsonNode doc, List<String> keyEnvs, String place) {
    if (!doc.toString().contains(PREFIX)) {
      return doc;
    }
    return replace(doc.deepCopy(), SecretKeys::isSealed, s -> open(s, keyEnvs, place));
  }

  private JsonNode open(String sealed, List<String> keyEnvs, String place) {
    String rest = sealed.substring(PREFIX.length());
    String id = rest.substring(0, rest.indexOf(':'));
    Key key =
        keys(keyEnvs).stream()
            .filter(k -> k.id().equals(id))
            .findFirst()
            .orElseThrow(
                () ->
                    missing(
                        "no secret key has id " + id + " (variables: " + names(keyEnvs) + ")",
                        place,
                        "set the variable that held this key, or list it in flows.json's"
                            + " secrets.oldKeyEnvs"));
    try {
      return Jackson.mapper().readTree(key.open(rest.substring(id.length() + 1)));
    } catch (java.io.IOException | GeneralSecurityException e) {
      throw missing(
          "a value sealed under key " + id + " does not open with it: " + e.getClass().getName(),
          place,
          "restore the key this value was sealed with");
    }
  }

  /**
   * @throws FlowsException {@code secret_key_missing} when nothing could be sealed now
   */
  public void requireSealingKey(List<String> keyEnvs, String place) {
    current(keyEnvs, place);
  }

  private Key current(List<String> frozen, String place) {
    List<String> keyEnvs = names(frozen);
    if (keyEnvs.isEmpty()) {
      throw missing(
          "a secret is to be journaled but no secret key is declared",
          place,
          "add \"secrets\": {\"keyEnv\": \"FLOWS_SECRET_KEY\"} to flows.json and set that variable"
              + " to a 256-bit key (openssl rand -base64 32)");
    }
    return read(keyEnvs.get(0), place)
        .orElseThrow(
            () ->
                missing(
                    "the secret key variable " + keyEnvs.get(0) + " is not set",
                    place,
                    "set " + keyEnvs.get(0) + " to a 256-bit key (openssl rand -base64 32)"));
  }

  private List<Key> keys(List<String> frozen) {
    return names(frozen).stream().flatMap(n -> read(n, n).stream()).toList();
  }

  /** {@code frozen} first, then the declared names it lacks. */
  private List<String> names(List<String> frozen) {
    java.util.LinkedHashSet<String> all = new java.util.LinkedHashSet<>(frozen);
    all.addAll(keyEnvs);
    return List.copyOf(all);
  }

  private Optional<Key> read(String name, String place) {
    return env.apply(name)
        .filter(v -> !v.isBlank())
        .map(v -> new Key(decode(name, v.strip(), place)));
  }

  private static byte[] decode(String name, String value, String place) {
    byte[] raw;
    try {
      raw =
          value.matches("[0-9a-fA-F]{64}")
              ? HexFormat.of().parseHex(value)
              : value.contains("-") || value.contains("_")
                  ? Base64.getUrlDecoder().decode(value)
                  : Base64.getDecoder().decode(value);
    } catch (IllegalArgumentException e) {
      raw = new byte[0];
    }
    if (raw.length != KEY_BYTES) {
      throw new FlowsException(
          ErrorCode.CONFIG_INVALID,
          "the secret key in " + name + " is not 256 bits (base64 or hex)",
          place,
          "set " + name + " to the output of `openssl rand -base64 32`");
    }
    return raw;
  }

  private static FlowsException missing(String message, String place, String fix) {
    return new FlowsException(ErrorCode.SECRET_KEY_MISSING, message, place, fix);
  }

  private static void put(JsonNode parent, JsonPointer last, JsonNode value) {
    if (parent instanceof ObjectNode o) {
      o.set(last.getMatchingProperty(), value);
    } else if (parent instanceof ArrayNode a) {
      a.set(last.getMatchingIndex(), value);
    }
  }

  /** {@code doc} (a copy the caller owns) with each string {@code match}es replaced. */
  private static JsonNode replace(
      JsonNode doc, java.util.function.Predicate<String> match, Function<String, JsonNode> with) {
    if (doc.isTextual() && match.test(doc.asText())) {
      return with.apply(doc.asText());
    }
    if (doc instanceof ObjectNode o) {
      for (Iterator<Map.Entry<String, JsonNode>> it = o.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        e.setValue(replace(e.getValue(), match, with));
      }
    } else if (doc instanceof ArrayNode a) {
      for (int i = 0; i < a.size(); i++) {
        a.set(i, replace(a.get(i), match, with));
      }
    }
    return doc;
  }

  /** One 256-bit key: its id, and the AES and nonce keys derived from it. */
  private record Key(String id, byte[] aes, byte[] nonce) {
    Key(byte[] raw) {
      this(
          HexFormat.of().formatHex(Arrays.copyOf(hmac(raw, "flows secret key id"), 8)),
          hmac(raw, "flows secret aes"),
          hmac(raw, "flows secret nonce"));
    }

    String seal(String plain) {
      byte[] text = plain.getBytes(StandardCharsets.UTF_8);
      byte[] iv = Arrays.copyOf(hmac(nonce, text), NONCE_BYTES);
      try {
        Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
        c.init(
            Cipher.ENCRYPT_MODE, new SecretKeySpec(aes, "AES"), new GCMParameterSpec(TAG_BITS, iv));
        c.updateAAD(aad());
        byte[] sealed = c.doFinal(text);
        byte[] out = Arrays.copyOf(iv, NONCE_BYTES + sealed.length);
        System.arraycopy(sealed, 0, out, NONCE_BYTES, sealed.length);
        return PREFIX + id + ":" + Base64.getUrlEncoder().withoutPadding().encodeToString(out);
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException("AES-GCM is unavailable in this JDK", e);
      }
    }

    byte[] open(String body) throws GeneralSecurityException {
      byte[] in = Base64.getUrlDecoder().decode(body);
      if (in.length <= NONCE_BYTES) {
        throw new javax.crypto.AEADBadTagException("too short");
      }
      Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
      c.init(
          Cipher.DECRYPT_MODE,
          new SecretKeySpec(aes, "AES"),
          new GCMParameterSpec(TAG_BITS, in, 0, NONCE_BYTES));
      c.updateAAD(aad());
      return c.doFinal(in, NONCE_BYTES, in.length - NONCE_BYTES);
    }

    private byte[] aad() {
      return (PREFIX + id).getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] hmac(byte[] key, String label) {
      return hmac(key, label.getBytes(StandardCharsets.US_ASCII));
    }

    private static byte[] hmac(byte[] key, byte[] data) {
      try {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(key, "HmacSHA256"));
        return mac.doFinal(data);
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException("HMAC-SHA256 is unavailable in this JDK", e);
      }
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Key k && k.id.equals(id);
    }

    @Override
    public int hashCode() {
      return id.hashCode();
    }

    @Override
    public String toString() {
      return "Key[" + id + "]";
    }
  }
}
