package dev.nhc.engine.config;

import dev.nhc.probe.ParamSpec;
import dev.nhc.probe.Params;
import dev.nhc.units.Dimension;
import dev.nhc.units.Quantity;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Checks a map of config values against declared {@link ParamSpec}s and converts them to typed
 * {@link Params}: numbers, durations, sizes, choices among fixed words, regular expressions
 * (compiled here), octal modes and globs. Every value a probe will read is valid once the config
 * has loaded; a mistake is a problem with its file:line:column, never an UNKNOWN at run time.
 */
public final class ParamConverter {
    private ParamConverter() {
    }

    /**
     * @param where what the map is, for messages ("check 'root-fs' (disk.usage) with:")
     * @param node  the map, or null when absent (defaults only)
     */
    public static Params convert(String where, ConfigNode node, Location fallback, List<ParamSpec<?>> specs, Problems problems) {
        Map<String, Object> out = new LinkedHashMap<>();
        Set<String> written = new LinkedHashSet<>();
        Map<String, ConfigNode> given = node == null || node.isNull() ? Map.of() : node.entries();
        if (node != null && !node.isNull() && !node.isMap()) {
            problems.add(node.location(), where + " must be a map of key: value, not " + node.describeKind());
            return new Params(out);
        }
        List<String> known = new ArrayList<>();
        for (ParamSpec<?> p : specs) {
            known.add(p.name());
        }
        for (String key : given.keySet()) {
            if (!known.contains(key)) {
                problems.add(node.keyLocation(key), "unknown key '" + key + "' in " + where + Suggest.didYouMean(key, known)
                        + (known.isEmpty() ? " (it takes no keys)" : " (known: " + String.join(", ", known) + ")"));
            }
        }
        for (ParamSpec<?> spec : specs) {
            ConfigNode v = given.get(spec.name());
            if (v == null || v.isNull()) {
                if (spec.isRequired()) {
                    problems.add(node != null && !node.isNull() ? node.location() : fallback,
                            where + " needs '" + spec.name() + "' (" + spec.type().label() + "): " + spec.description());
                } else if (spec.defaultValue() != null) {
                    out.put(spec.name(), spec.defaultValue());
                }
                continue;
            }
            Object converted = convertValue(v, spec, where, problems);
            if (converted != null) {
                String wrong = spec.problemWith(converted);
                if (wrong != null) {
                    problems.add(v.location(), "'" + spec.name() + "' in " + where + (where.endsWith(":") ? " " : ": ") + wrong);
                    continue;
                }
                out.put(spec.name(), converted);
                written.add(spec.name());
            }
        }
        return new Params(out, written);
    }

    private static Object convertValue(ConfigNode v, ParamSpec<?> spec, String where, Problems problems) {
        String what = "'" + spec.name() + "' in " + where;
        try {
            return switch (spec.type()) {
                case STRING -> {
                    requireScalar(v, what);
                    yield v.text();
                }
                case INTEGER -> integer(v, what);
                case NUMBER -> {
                    requireScalar(v, what);
                    if (!(v.value() instanceof Number n)) {
                        throw new IllegalArgumentException(what + " must be a number, not " + v.describeKind());
                    }
                    yield n.doubleValue();
                }
                case BOOLEAN -> {
                    requireScalar(v, what);
                    if (!(v.value() instanceof Boolean b)) {
                        throw new IllegalArgumentException(what + " must be true or false, not " + v.describeKind());
                    }
                    yield b;
                }
                case DURATION -> {
                    requireScalar(v, what);
                    yield Quantity.parseDuration(v.text());
                }
                case BYTES -> {
                    requireScalar(v, what);
                    yield Quantity.parseBytes(v.text());
                }
                case STRING_LIST -> {
                    List<String> out = new ArrayList<>();
                    for (ConfigNode item : listOf(v)) {
                        requireScalar(item, "each item of " + what);
                        out.add(item.text());
                    }
                    yield List.copyOf(out);
                }
                case INTEGER_LIST -> {
                    List<Long> out = new ArrayList<>();
                    for (ConfigNode item : listOf(v)) {
                        out.add(integer(item, "each item of " + what));
                    }
                    yield List.copyOf(out);
                }
                case MAP -> {
                    if (!v.isMap()) {
                        throw new IllegalArgumentException(what + " must be a map, not " + v.describeKind());
                    }
                    yield v.toPlain();
                }
                case ANY -> v.toPlain();
                case PERCENT -> percent(v, what);
                case CHOICE -> {
                    requireScalar(v, what);
                    yield v.text();
                }
                case REGEX -> {
                    requireScalar(v, what);
                    yield regex(v.text(), what);
                }
                case OCTAL_MODE -> {
                    requireScalar(v, what);
                    yield octalMode(v.text(), what);
                }
                case GLOB_LIST -> {
                    List<Pattern> out = new ArrayList<>();
                    for (ConfigNode item : listOf(v)) {
                        requireScalar(item, "each item of " + what);
                        out.add(glob(item.text(), "each item of " + what));
                    }
                    yield List.copyOf(out);
                }
            };
        } catch (IllegalArgumentException e) {
            // Messages built here name the key already ("'size' in ...", "each item of 'size' in ..."); the
            // parsers' ("unknown unit 'x' in '5x'") do not, and get it in front.
            String m = String.valueOf(e.getMessage());
            problems.add(v.location(), m.contains(what) ? m : what + ": " + m);
            return null;
        }
    }

    /** A single scalar stands for a one-item list, as admins write {@code fail: 79}. */
    private static List<ConfigNode> listOf(ConfigNode v) {
        return v.isList() ? v.items() : List.of(v);
    }

    private static Long integer(ConfigNode v, String what) {
        requireScalar(v, what);
        if (!(v.value() instanceof Long l)) {
            throw new IllegalArgumentException(what + " must be a whole number, not " + v.describeKind());
        }
        return l;
    }

    private static Double percent(ConfigNode v, String what) {
        requireScalar(v, what);
        double p;
        if (v.value() instanceof Number n) {
            p = n.doubleValue();
        } else {
            Quantity q;
            try {
                q = Quantity.parse(v.text());
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(what + " must be a percentage (e.g. 5%), not '" + v.text() + "'", e);
            }
            if (q.dimension() != null && q.dimension() != Dimension.PERCENT) {
                throw new IllegalArgumentException(what + " must be a percentage (e.g. 5%), not '" + v.text() + "'");
            }
            p = q.base();
        }
        if (p < 0 || Double.isNaN(p)) {
            throw new IllegalArgumentException(what + " must not be negative, not '" + v.text() + "'");
        }
        return p;
    }

    private static Pattern regex(String text, String what) {
        try {
            return Pattern.compile(text);
        } catch (PatternSyntaxException e) {
            throw new IllegalArgumentException(what + " is not a valid regular expression: " + e.getDescription()
                    + (e.getIndex() >= 0 ? " at character " + (e.getIndex() + 1) : "") + " in '" + text + "'");
        }
    }

    /** "644", "0644", "0o644" → "0644"; at most four octal digits, at most 07777. */
    static String octalMode(String text, String what) {
        String t = text.strip();
        if (t.startsWith("0o")) {
            t = t.substring(2);
        }
        boolean octal = !t.isEmpty() && t.length() <= 5;
        for (int i = 0; octal && i < t.length(); i++) {
            octal = t.charAt(i) >= '0' && t.charAt(i) <= '7';
        }
        if (!octal || Integer.parseInt(t, 8) > 07777) {
            throw new IllegalArgumentException(what + " must be permission bits in octal such as 0644, not '" + text + "'");
        }
        String digits = Integer.toOctalString(Integer.parseInt(t, 8));
        return "0000".substring(Math.min(4, digits.length())) + digits;
    }

    /** A shell glob ({@code *}, {@code ?}, {@code [a-z]}, {@code [!x]}) as a whole-string pattern. */
    static Pattern glob(String text, String what) {
        StringBuilder re = new StringBuilder();
        boolean inClass = false;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (inClass) {
                if (c == ']') {
                    inClass = false;
                    re.append(']');
                } else if (c == '\\' || c == '[' || c == '&' || c == '^' && re.charAt(re.length() - 1) != '[') {
                    re.append('\\').append(c);
                } else {
                    re.append(c);
                }
                continue;
            }
            switch (c) {
                case '*' -> re.append(".*");
                case '?' -> re.append('.');
                case '[' -> {
                    inClass = true;
                    re.append('[');
                    if (i + 1 < text.length() && (text.charAt(i + 1) == '!' || text.charAt(i + 1) == '^')) {
                        re.append('^');
                        i++;
                    }
                }
                default -> re.append(Pattern.quote(String.valueOf(c)));
            }
        }
        if (inClass || text.isEmpty()) {
            throw new IllegalArgumentException(what + ": '" + text + "' is not a glob (unclosed '[' or empty)");
        }
        try {
            return Pattern.compile(re.toString());
        } catch (PatternSyntaxException e) {
            throw new IllegalArgumentException(what + ": '" + text + "' is not a glob: " + e.getDescription());
        }
    }

    private static void requireScalar(ConfigNode v, String what) {
        if (!v.isScalar()) {
            throw new IllegalArgumentException(what + " must be a single value, not " + v.describeKind());
        }
    }
}
