package dev.nhc.rules;

import dev.nhc.engine.config.ConfigNode;
import dev.nhc.engine.config.Location;
import dev.nhc.engine.config.Problems;
import dev.nhc.probe.ParamSpec;
import dev.nhc.probe.Params;
import dev.nhc.probe.ProbeSpec;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A check's parameters inside its rules: {@code "< {with.count}"} becomes {@code "< 8"} for a check
 * with {@code with: {count: 8}}, when the rules are compiled. A default rule that names a parameter
 * the check does not set does not apply to that check; a config's own rule that does is an error.
 */
final class ParamText {
    static final Pattern REF = Pattern.compile("\\{with\\.([A-Za-z_][A-Za-z0-9_]*)}");

    /** What a substitution found. */
    enum Outcome { DONE, UNSET, INVALID }

    private ParamText() {
    }

    /** The value as a condition reads it: numbers plain, durations in seconds, patterns as written. */
    static String render(Object value) {
        if (value instanceof Duration d) {
            long ms = d.toMillis();
            return ms % 1000 == 0 ? (ms / 1000) + "s" : ms + "ms";
        }
        if (value instanceof Pattern p) {
            return p.pattern();
        }
        if (value instanceof Double x && x == Math.rint(x) && Math.abs(x) < 1e15) {
            return Long.toString(x.longValue());
        }
        return String.valueOf(value);
    }

    /**
     * Substitutes every {@code {with.name}} in the scalars of {@code node}. Returns the rewritten
     * node in {@code out[0]}; UNSET when a named parameter has no value for this check, INVALID
     * (after adding a problem) when it names no parameter of the probe or one that is a list or map.
     */
    static Outcome substitute(ConfigNode node, Params params, ProbeSpec spec, String where, Problems problems, ConfigNode[] out) {
        if (node == null) {
            out[0] = null;
            return Outcome.DONE;
        }
        if (node.isMap()) {
            Map<String, ConfigNode> entries = new LinkedHashMap<>();
            Map<String, Location> keys = new LinkedHashMap<>();
            for (Map.Entry<String, ConfigNode> e : node.entries().entrySet()) {
                Outcome o = substitute(e.getValue(), params, spec, where, problems, out);
                if (o != Outcome.DONE) {
                    return o;
                }
                entries.put(e.getKey(), out[0]);
                keys.put(e.getKey(), node.keyLocation(e.getKey()));
            }
            out[0] = ConfigNode.map(node.location(), entries, keys);
            return Outcome.DONE;
        }
        if (node.isList()) {
            List<ConfigNode> items = new ArrayList<>();
            for (ConfigNode item : node.items()) {
                Outcome o = substitute(item, params, spec, where, problems, out);
                if (o != Outcome.DONE) {
                    return o;
                }
                items.add(out[0]);
            }
            out[0] = ConfigNode.list(node.location(), items);
            return Outcome.DONE;
        }
        String text = node.text();
        if (node.isNull() || text == null || !text.contains("{with.")) {
            out[0] = node;
            return Outcome.DONE;
        }
        Matcher m = REF.matcher(text);
        StringBuilder b = new StringBuilder();
        while (m.find()) {
            String name = m.group(1);
            ParamSpec<?> p = spec.param(name).orElse(null);
            if (p == null) {
                problems.add(node.location(), where + ": '{with." + name + "}' names no parameter of probe " + spec.name()
                        + (spec.params().isEmpty() ? " (it takes none)" : " (it takes " + names(spec) + ")"));
                return Outcome.INVALID;
            }
            Object v = params.raw(name);
            if (v == null) {
                return Outcome.UNSET;
            }
            if (v instanceof List || v instanceof Map) {
                problems.add(node.location(), where + ": '{with." + name + "}' is a list or map; a condition compares one value");
                return Outcome.INVALID;
            }
            m.appendReplacement(b, Matcher.quoteReplacement(render(v)));
        }
        m.appendTail(b);
        out[0] = ConfigNode.scalar(node.location(), b.toString(), b.toString());
        return Outcome.DONE;
    }

    private static String names(ProbeSpec spec) {
        List<String> n = new ArrayList<>();
        spec.params().forEach(p -> n.add(p.name()));
        return String.join(", ", n);
    }
}
