package dev.nhc.engine.config;

import dev.nhc.probe.ParamSpec;
import dev.nhc.probe.Params;
import dev.nhc.units.Dimension;
import dev.nhc.units.Quantity;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Checks a map of config values against declared {@link ParamSpec}s and converts them to typed {@link Params}. */
public final class ParamConverter {
    private ParamConverter() {
    }

    /**
     * @param where what the map is, for messages ("check 'root-fs' (disk.usage) with:")
     * @param node  the map, or null when absent (defaults only)
     */
    public static Params convert(String where, ConfigNode node, Location fallback, List<ParamSpec> specs, Problems problems) {
        Map<String, Object> out = new LinkedHashMap<>();
        Map<String, ConfigNode> given = node == null || node.isNull() ? Map.of() : node.entries();
        if (node != null && !node.isNull() && !node.isMap()) {
            problems.add(node.location(), where + " must be a map of key: value, not " + node.describeKind());
            return new Params(out);
        }
        List<String> known = specs.stream().map(ParamSpec::name).toList();
        for (String key : given.keySet()) {
            if (!known.contains(key)) {
                problems.add(node.keyLocation(key), "unknown key '" + key + "' in " + where + Suggest.didYouMean(key, known)
                        + (known.isEmpty() ? " (it takes no keys)" : " (known: " + String.join(", ", known) + ")"));
            }
        }
        for (ParamSpec spec : specs) {
            ConfigNode v = given.get(spec.name());
            if (v == null || v.isNull()) {
                if (spec.required()) {
                    problems.add(node != null && !node.isNull() ? node.location() : fallback,
                            where + " needs '" + spec.name() + "' (" + spec.type().label() + "): " + spec.description());
                } else if (spec.defaultValue() != null) {
                    out.put(spec.name(), spec.defaultValue());
                }
                continue;
            }
            Object converted = convertValue(v, spec, where, problems);
            if (converted != null) {
                out.put(spec.name(), converted);
            }
        }
        return new Params(out);
    }

    private static Object convertValue(ConfigNode v, ParamSpec spec, String where, Problems problems) {
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
            };
        } catch (IllegalArgumentException e) {
            problems.add(v.location(), e.getMessage().startsWith("'" + spec.name()) || e.getMessage().contains(" in ") ? e.getMessage() : what + ": " + e.getMessage());
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

    private static void requireScalar(ConfigNode v, String what) {
        if (!v.isScalar()) {
            throw new IllegalArgumentException(what + " must be a single value, not " + v.describeKind());
        }
    }
}
