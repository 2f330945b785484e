package dev.flows.embed;

import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * The public surface of one package as compiled: a sorted line per public type and per public or
 * protected member ({@link #lines}), and every type its signatures name that the API does not own
 * ({@link #leaks}).
 */
final class ApiSurface {
  /** Packages whose types a public signature may name, beyond the API's own. */
  static final List<String> ALLOWED_PREFIXES =
      List.of(
          "java.",
          "javax.sql.",
          "com.fasterxml.jackson.databind.JsonNode",
          "com.fasterxml.jackson.databind.node.",
          "org.jspecify.");

  /** The packages the public API owns: sdk/api's and sdk/embed's. */
  static final Set<String> OWNED = Set.of("dev.flows.sdk", "dev.flows.embed");

  /** By type: its header line, then its members' lines, sorted. */
  private final java.util.SortedMap<String, Set<String>> types = new java.util.TreeMap<>();

  private Set<String> lines = new TreeSet<>();
  private final Set<String> leaks = new TreeSet<>();
  private final Set<String> owned;
  private final List<String> allowedPrefixes;

  private ApiSurface(Set<String> owned, List<String> allowedPrefixes) {
    this.owned = owned;
    this.allowedPrefixes = allowedPrefixes;
  }

  static ApiSurface of(Path classesRoot, String pkg) throws Exception {
    return of(classesRoot, pkg, OWNED, ALLOWED_PREFIXES);
  }

  /**
   * As {@link #of(Path, String)} for an API that owns {@code owned} and may name {@code
   * allowedPrefixes} (the test kit's, which also names JUnit's and AssertJ's types).
   */
  static ApiSurface of(
      Path classesRoot, String pkg, Set<String> owned, List<String> allowedPrefixes)
      throws Exception {
    ApiSurface s = new ApiSurface(owned, allowedPrefixes);
    List<String> names = PublicApiSurfaceTest.classNames(classesRoot).toList();
    for (String name : names) {
      if (!name.startsWith(pkg + ".") || name.substring(pkg.length() + 1).contains(".")) {
        continue;
      }
      Class<?> c = Class.forName(name, false, ApiSurface.class.getClassLoader());
      if (exported(c)) {
        s.add(c);
      }
    }
    return s;
  }

  /** Public, and (for a nested type) nested in public types only. */
  private static boolean exported(Class<?> c) {
    for (Class<?> k = c; k != null; k = k.getDeclaringClass()) {
      if (!Modifier.isPublic(k.getModifiers()) || k.isSynthetic() || k.isAnonymousClass()) {
        return false;
      }
    }
    return true;
  }

  /** Each type's header line, then its members indented, types by name. */
  List<String> lines() {
    List<String> out = new ArrayList<>();
    types.forEach(
        (type, members) -> {
          out.add(members.stream().filter(l -> !l.startsWith(" ")).findFirst().orElseThrow());
          members.stream().filter(l -> l.startsWith(" ")).forEach(out::add);
        });
    return out;
  }

  List<String> leaks() {
    return List.copyOf(leaks);
  }

  private void add(Class<?> c) {
    String type = c.getName();
    lines = new TreeSet<>();
    types.put(type, lines);
    lines.add(type + " " + header(c));
    names(c.getGenericSuperclass(), t -> leak(t, type + " extends"));
    for (Type i : c.getGenericInterfaces()) {
      names(i, t -> leak(t, type + " implements"));
    }
    for (Field f : c.getDeclaredFields()) {
      if (visible(f)) {
        lines.add("  " + f.toGenericString().replace(type + ".", ""));
        names(f.getGenericType(), t -> leak(t, type + "." + f.getName()));
      }
    }
    for (Constructor<?> k : c.getDeclaredConstructors()) {
      if (visible(k)) {
        lines.add("  " + k.toGenericString());
        signature(k, type + ".<init>");
      }
    }
    for (Method m : c.getDeclaredMethods()) {
      if (visible(m) && !m.isBridge()) {
        lines.add("  " + m.toGenericString().replace(type + ".", ""));
        names(m.getGenericReturnType(), t -> leak(t, type + "." + m.getName()));
        signature(m, type + "." + m.getName());
      }
    }
  }

  private static String header(Class<?> c) {
    String kind =
        c.isAnnotation()
            ? "@interface"
            : c.isInterface()
                ? "interface"
                : c.isEnum() ? "enum" : c.isRecord() ? "record" : "class";
    StringBuilder h = new StringBuilder(Modifier.toString(c.getModifiers() & ~Modifier.INTERFACE));
    h.append(h.isEmpty() ? "" : " ").append(kind);
    if (c.getTypeParameters().length > 0) {
      List<String> ps = new ArrayList<>();
      for (TypeVariable<?> v : c.getTypeParameters()) {
        ps.add(v.getName());
      }
      h.append(" <").append(String.join(", ", ps)).append(">");
    }
    if (c.getGenericSuperclass() != null
        && c.getSuperclass() != Object.class
        && !c.isEnum()
        && !c.isRecord()) {
      h.append(" extends ").append(c.getGenericSuperclass().getTypeName());
    }
    List<String> is = new ArrayList<>();
    for (Type i : c.getGenericInterfaces()) {
      is.add(i.getTypeName());
    }
    if (!is.isEmpty()) {
      h.append(c.isInterface() ? " extends " : " implements ").append(String.join(", ", is));
    }
    if (c.isSealed()) {
      List<String> ps = new ArrayList<>();
      for (Class<?> p : c.getPermittedSubclasses()) {
        ps.add(p.getName());
      }
      h.append(" permits ").append(String.join(", ", ps));
    }
    return h.toString();
  }

  private static boolean visible(Member m) {
    int mod = m.getModifiers();
    return !m.isSynthetic() && (Modifier.isPublic(mod) || Modifier.isProtected(mod));
  }

  private void signature(Executable e, String where) {
    for (Type p : e.getGenericParameterTypes()) {
      names(p, t -> leak(t, where));
    }
    for (Type x : e.getGenericExceptionTypes()) {
      names(x, t -> leak(t, where));
    }
  }

  private void leak(Class<?> named, String where) {
    String n = named.getName();
    String pkg = named.getPackageName();
    if (named.isPrimitive() || owned.contains(pkg)) {
      return;
    }
    for (String allowed : allowedPrefixes) {
      if (n.startsWith(allowed)) {
        return;
      }
    }
    leaks.add(where + " names " + n);
  }

  /** Every class {@code t} names, through type arguments, bounds and arrays. */
  private static void names(Type t, Consumer<Class<?>> out) {
    switch (t) {
      case null -> {}
      case Class<?> c when c.isArray() -> names(c.getComponentType(), out);
      case Class<?> c -> out.accept(c);
      case ParameterizedType p -> {
        names(p.getRawType(), out);
        for (Type a : p.getActualTypeArguments()) {
          names(a, out);
        }
      }
      case WildcardType w -> {
        for (Type b : w.getUpperBounds()) {
          names(b, out);
        }
        for (Type b : w.getLowerBounds()) {
          names(b, out);
        }
      }
      case GenericArrayType g -> names(g.getGenericComponentType(), out);
      case TypeVariable<?> v -> {
        for (Type b : v.getBounds()) {
          names(b, out);
        }
      }
      default -> throw new IllegalStateException("unknown kind of type " + t);
    }
  }
}
