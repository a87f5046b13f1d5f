package dev.nhc.scripts;

import dev.nhc.model.Entity;
import dev.nhc.model.Observation;
import dev.nhc.model.Remedy;
import dev.nhc.probe.DefaultRule;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.units.Unit;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Per-entity findings a script reports as JSON (schema in scripts/README.md):
 * {@code [{"entity": "mlx5_0/1", "severity": "fail", "message": "...", "remedy": "reboot"}]},
 * found under {@code nhc_findings} in an external script's stdout, or as the value of a
 * {@code script.js} check. nhc observes what the script said — its severity, message and remedy
 * per entity — and its default rules take the script at its word, so a site can still judge
 * differently with {@code fail:}/{@code warn:}. {@code entity} defaults to the node.
 */
final class ScriptFindings {
    static final int MAX = 1000;
    static final String SEVERITY = "reported_severity";
    static final String MESSAGE = "message";
    static final String REMEDY = "remedy";
    private static final List<String> KEYS = List.of("entity", "severity", "message", "remedy");
    /** The words a script may use, least to most severe (as nhc ranks them: "could not decide" below "degraded"). */
    private static final List<String> SEVERITIES = List.of("pass", "unknown", "warn", "fail");

    private ScriptFindings() {
    }

    /** The fields a reported finding is observed as, and the rules that take the script at its word. */
    static ProbeSpec.Builder declare(ProbeSpec.Builder spec) {
        return spec
                .field(SEVERITY, Unit.TEXT, "the severity the script reported for the entity: pass, warn, fail or unknown")
                .field(MESSAGE, Unit.TEXT, "the script's message for the entity (one line, at most 500 characters)")
                .field(REMEDY, Unit.TEXT, "the remedy the script suggested: none, restart-app, reset-gpu, reboot or hardware")
                // A reported finding is known by its severity; the script's own run, or the node, need not have one.
                .reportedWith(SEVERITY, MESSAGE)
                .optional(SEVERITY, REMEDY)
                .rule(DefaultRule.fail(Map.of(SEVERITY, "fail"), "{message}").remedyFrom(REMEDY))
                .rule(DefaultRule.warn(Map.of(SEVERITY, "warn"), "{message}").remedyFrom(REMEDY))
                .rule(DefaultRule.unknown(Map.of(SEVERITY, "unknown"), "{message}"));
    }

    /** Reads the list into one observation per entry; throws IllegalArgumentException naming the entry and the key that is wrong. */
    static List<Observation> read(Object list) {
        if (!(list instanceof List<?> entries)) {
            throw new IllegalArgumentException("findings must be a list, not " + kind(list));
        }
        if (entries.size() > MAX) {
            throw new IllegalArgumentException("more than " + MAX + " findings (" + entries.size() + ")");
        }
        List<Observation> out = new ArrayList<>();
        int i = 0;
        for (Object e : entries) {
            i++;
            if (!(e instanceof Map<?, ?> m)) {
                throw new IllegalArgumentException("finding " + i + " is " + kind(e) + ", not an object");
            }
            for (Object key : m.keySet()) {
                if (!KEYS.contains(String.valueOf(key))) {
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
            String severity = sev.strip().toLowerCase(Locale.ROOT);
            if (!SEVERITIES.contains(severity)) {
                throw new IllegalArgumentException("finding " + i + ": unknown severity '" + severity
                        + "' (expected pass, warn, fail or unknown)");
            }
            Remedy remedy;
            try {
                remedy = m.get("remedy") == null ? null : Remedy.parse(String.valueOf(m.get("remedy")).strip());
            } catch (IllegalArgumentException ex) {
                throw new IllegalArgumentException("finding " + i + ": " + ex.getMessage());
            }
            out.add(Observation.of(entity((String) entity)).put(SEVERITY, severity).put(MESSAGE, clip(message.strip()))
                    .put(REMEDY, remedy == null ? null : remedy.label()).build());
        }
        return out;
    }

    /** The worst severity among these reports: "none" when there are none. */
    static String worst(List<Observation> reported) {
        int worst = -1;
        for (Observation o : reported) {
            worst = Math.max(worst, SEVERITIES.indexOf(String.valueOf(o.get(SEVERITY))));
        }
        return worst < 0 ? "none" : SEVERITIES.get(worst);
    }

    /** "node" or nothing is the node, "GPU 3" is GPU 3 (so dstack files it under that GPU), anything else is named as written. */
    static Entity entity(String name) {
        String n = name == null ? "" : name.strip();
        if (n.isEmpty() || n.equals("node")) {
            return Entity.NODE;
        }
        if (n.startsWith("GPU ") && n.length() > 4 && n.length() < 11 && n.substring(4).chars().allMatch(Character::isDigit)) {
            return Entity.gpu(Integer.parseInt(n.substring(4)), null);
        }
        return Entity.of(Entity.Kind.OTHER, n);
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
        return o instanceof String ? "a string" : "a " + o.getClass().getSimpleName().toLowerCase(Locale.ROOT);
    }
}
