package dev.nhc.checks.dcgm;

import dev.nhc.checks.dcgm.DcgmJson.DcgmOutputException;
import dev.nhc.model.Entity;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What {@code dcgmi health -c -j} reported. Its JSON mirrors dcgmi's table: {@code body} holds
 * {@code "Overall Health": {value}} and, per entity group ("GPU", "Switch"…), {@code children}
 * keyed by entity id, each with a {@code value} and {@code children.Errors.children} keyed by
 * health system ("PCIe system", "Memory system"…) whose {@code value} is Healthy / Warning /
 * Failure and whose {@code overflow} lines are DCGM's messages, wrapped at word boundaries.
 * The text dcgmi prints without {@code -j} is read by {@link DcgmHealthTable} into the same report.
 */
record DcgmHealthReport(String overall, List<Incident> incidents) {

    /** DCGM's own numbers for its results (dcgmHealthWatchResults_t): PASS 0, WARN 10, FAIL 20. */
    static final long PASS = 0;
    static final long WARN = 10;
    static final long FAIL = 20;
    /** Not one of DCGM's results ("Internal error"): DCGM could not judge. */
    static final long UNDECIDED = -1;

    /** One health system of one entity that DCGM did not find healthy. */
    record Incident(Entity entity, String system, String health, String message) {
        long code() {
            return DcgmHealthReport.code(health);
        }
    }

    static final String OVERALL = "Overall Health";

    static DcgmHealthReport parse(String text, String what) throws DcgmOutputException {
        if (DcgmHealthTable.isTable(text)) {
            return DcgmHealthTable.parse(text, what);
        }
        Object doc = DcgmJson.parse(text, what);
        if (!(doc instanceof Map<?, ?> root) || !(root.get("body") instanceof Map<?, ?> body)) {
            throw new DcgmOutputException("cannot parse " + what + " at line " + DcgmJson.lineOf(text, "body")
                    + ": expected an object with \"body\" (dcgmi health -c -j), found " + describeTop(doc));
        }
        if (!(body.get(OVERALL) instanceof Map<?, ?> overallNode) || !(overallNode.get("value") instanceof String overall)) {
            throw new DcgmOutputException("cannot parse " + what + " at line " + DcgmJson.lineOf(text, "body")
                    + ": \"body\" has no \"" + OVERALL + "\" value");
        }
        List<Incident> incidents = new ArrayList<>();
        for (Map.Entry<?, ?> group : body.entrySet()) {
            if (OVERALL.equals(group.getKey())) {
                continue;
            }
            String groupName = String.valueOf(group.getKey());
            Map<?, ?> entities = children(group.getValue());
            for (Map.Entry<?, ?> e : entities.entrySet()) {
                Entity entity = DcgmJson.entity(groupName, e.getKey());
                Map<?, ?> errors = children(children(e.getValue()).get("Errors"));
                if (errors.isEmpty() && e.getValue() instanceof Map<?, ?> m && m.get("value") instanceof String v
                        && code(v) != PASS) {
                    incidents.add(new Incident(entity, "overall", v, "DCGM reports " + groupName + " " + e.getKey() + " " + v));
                }
                for (Map.Entry<?, ?> sys : errors.entrySet()) {
                    if (!(sys.getValue() instanceof Map<?, ?> sysNode)) {
                        continue;
                    }
                    String health = sysNode.get("value") instanceof String s ? s : "Internal error";
                    incidents.add(new Incident(entity, String.valueOf(sys.getKey()), health, joinOverflow(sysNode.get("overflow"))));
                }
            }
        }
        return new DcgmHealthReport(overall, incidents);
    }

    /** Healthy → 0, Warning → 10, Failure → 20 (DCGM's numbers); anything else ("Internal error") → {@link #UNDECIDED}. */
    static long code(String health) {
        return switch (health.strip().toLowerCase(Locale.ROOT)) {
            case "healthy", "pass" -> PASS;
            case "warning", "warn" -> WARN;
            case "failure", "fail" -> FAIL;
            default -> UNDECIDED;
        };
    }

    private static Map<?, ?> children(Object node) {
        if (node instanceof Map<?, ?> m && m.get("children") instanceof Map<?, ?> c) {
            return c;
        }
        return Map.of();
    }

    private static String joinOverflow(Object overflow) {
        if (overflow instanceof List<?> parts) {
            List<String> s = new ArrayList<>();
            for (Object p : parts) {
                s.add(String.valueOf(p).strip());
            }
            return String.join(" ", s);
        }
        return overflow == null ? "" : overflow.toString();
    }

    private static String describeTop(Object doc) {
        if (doc instanceof Map<?, ?> m) {
            return m.isEmpty() ? "an empty object" : "an object with " + m.keySet().stream().limit(3).map(k -> "\"" + k + "\"").toList();
        }
        return DcgmJson.kind(doc);
    }
}
