package dev.nhc.scripts;

import dev.nhc.model.Finding;
import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Per-entity findings a script reports as JSON (schema in scripts/README.md):
 * {@code [{"entity": "mlx5_0/1", "severity": "fail", "message": "...", "remedy": "reboot"}]},
 * found under {@code nhc_findings} in an external script's stdout, or as the value of a
 * {@code script.js} check. {@code entity} defaults to "node", {@code remedy} to none.
 */
final class ScriptFindings {
    static final int MAX = 1000;

    private ScriptFindings() {
    }

    /** Reads the list; throws IllegalArgumentException naming the entry and the key that is wrong. */
    static List<Finding> read(Object list) {
        if (!(list instanceof List<?> entries)) {
            throw new IllegalArgumentException("findings must be a list, not " + kind(list));
        }
        if (entries.size() > MAX) {
            throw new IllegalArgumentException("more than " + MAX + " findings (" + entries.size() + ")");
        }
        List<Finding> out = new ArrayList<>();
        int i = 0;
        for (Object e : entries) {
            i++;
            if (!(e instanceof Map<?, ?> m)) {
                throw new IllegalArgumentException("finding " + i + " is " + kind(e) + ", not an object");
            }
            for (Object key : m.keySet()) {
                if (!List.of("entity", "severity", "message", "remedy").contains(String.valueOf(key))) {
                    throw new IllegalArgumentException("finding " + i + " has unknown key '" + key
                            + "' (known: entity, severity, message, remedy)");
                }
            }
            Object entity = m.get("entity");
            if (entity != null && !(entity instanceof String)) {
                throw new IllegalArgumentException("finding " + i + ": entity must be a string");
            }
            if (!(m.get("severity") instanceof String sev)) {
                throw new IllegalArgumentException("finding " + i + " has no severity (pass, warn, fail or unknown)");
            }
            if (!(m.get("message") instanceof String message) || message.isBlank()) {
                throw new IllegalArgumentException("finding " + i + " has no message");
            }
            Severity severity;
            Remedy remedy;
            try {
                severity = Severity.parse(sev.strip().toLowerCase(java.util.Locale.ROOT));
                remedy = m.get("remedy") == null ? Remedy.NONE : Remedy.parse(String.valueOf(m.get("remedy")).strip());
            } catch (IllegalArgumentException ex) {
                throw new IllegalArgumentException("finding " + i + ": " + ex.getMessage());
            }
            String ent = entity == null || ((String) entity).isBlank() ? "node" : ((String) entity).strip();
            out.add(new Finding(null, ent, severity, clip(message.strip()), remedy, null, Map.of()));
        }
        return out;
    }

    /** Messages end up in Slurm reasons and reports: one line, bounded. */
    static String clip(String s) {
        String one = s.replaceAll("[\\r\\n\\t]+", " ");
        return one.length() > 500 ? one.substring(0, 500) + "…" : one;
    }

    private static String kind(Object o) {
        if (o == null) {
            return "null";
        }
        if (o instanceof Map) {
            return "an object";
        }
        if (o instanceof List) {
            return "a list";
        }
        return o instanceof String ? "a string" : "a " + o.getClass().getSimpleName().toLowerCase(java.util.Locale.ROOT);
    }
}
