package dev.nhc.engine.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A YAML value with the place it was written, so that every error can name file:line:column.
 * Scalars keep both their raw text (what the admin typed: {@code on}, {@code NO}, {@code 08}) and
 * the YAML-resolved value (Long, Double, Boolean, String or null); string parameters use the text,
 * which sidesteps YAML 1.1's "yes/no/on/off are booleans" surprises.
 */
public final class ConfigNode {
    public enum Kind { SCALAR, MAP, LIST }

    private final Kind kind;
    private final Location location;
    private final String text;
    private final Object value;
    private final Map<String, ConfigNode> map;
    private final Map<String, Location> keyLocations;
    private final List<ConfigNode> list;

    private ConfigNode(Kind kind, Location location, String text, Object value, Map<String, ConfigNode> map,
                       Map<String, Location> keyLocations, List<ConfigNode> list) {
        this.kind = kind;
        this.location = location;
        this.text = text;
        this.value = value;
        this.map = map;
        this.keyLocations = keyLocations;
        this.list = list;
    }

    public static ConfigNode scalar(Location at, String text, Object value) {
        return new ConfigNode(Kind.SCALAR, at, text, value, null, null, null);
    }

    public static ConfigNode map(Location at, Map<String, ConfigNode> entries, Map<String, Location> keyLocations) {
        return new ConfigNode(Kind.MAP, at, null, null, Collections.unmodifiableMap(new LinkedHashMap<>(entries)),
                Collections.unmodifiableMap(new LinkedHashMap<>(keyLocations)), null);
    }

    public static ConfigNode list(Location at, List<ConfigNode> items) {
        return new ConfigNode(Kind.LIST, at, null, null, null, null, List.copyOf(items));
    }

    /** Wraps plain Java data (a probe's default rule) so it can be read like config, all at one location. */
    public static ConfigNode fromPlain(Object o, Location at) {
        if (o instanceof Map<?, ?> m) {
            Map<String, ConfigNode> entries = new LinkedHashMap<>();
            Map<String, Location> keys = new LinkedHashMap<>();
            m.forEach((k, v) -> {
                entries.put(String.valueOf(k), fromPlain(v, at));
                keys.put(String.valueOf(k), at);
            });
            return map(at, entries, keys);
        }
        if (o instanceof List<?> l) {
            List<ConfigNode> items = new ArrayList<>();
            l.forEach(v -> items.add(fromPlain(v, at)));
            return list(at, items);
        }
        Object v = o instanceof Integer i ? Long.valueOf(i) : o;
        return scalar(at, o == null ? "" : String.valueOf(o), v);
    }

    public Kind kind() {
        return kind;
    }

    public boolean isScalar() {
        return kind == Kind.SCALAR;
    }

    public boolean isMap() {
        return kind == Kind.MAP;
    }

    public boolean isList() {
        return kind == Kind.LIST;
    }

    public boolean isNull() {
        return kind == Kind.SCALAR && value == null;
    }

    public Location location() {
        return location;
    }

    /** The scalar as typed (null for maps and lists). */
    public String text() {
        return text;
    }

    /** The scalar as YAML resolved it: Long, Double, Boolean, String or null. */
    public Object value() {
        return value;
    }

    public Map<String, ConfigNode> entries() {
        return map == null ? Map.of() : map;
    }

    public ConfigNode get(String key) {
        return map == null ? null : map.get(key);
    }

    public Location keyLocation(String key) {
        Location l = keyLocations == null ? null : keyLocations.get(key);
        return l == null ? location : l;
    }

    public List<ConfigNode> items() {
        return list == null ? List.of() : list;
    }

    public String describeKind() {
        return switch (kind) {
            case MAP -> "a map";
            case LIST -> "a list";
            case SCALAR -> value == null ? "empty" : value instanceof String ? "the text '" + text + "'" : "'" + text + "'";
        };
    }

    /** Plain Java data (Map / List / scalar values), for code that does not need locations. */
    public Object toPlain() {
        return switch (kind) {
            case SCALAR -> value;
            case LIST -> {
                List<Object> out = new ArrayList<>();
                list.forEach(n -> out.add(n.toPlain()));
                yield out;
            }
            case MAP -> {
                Map<String, Object> out = new LinkedHashMap<>();
                map.forEach((k, n) -> out.put(k, n.toPlain()));
                yield out;
            }
        };
    }
}
