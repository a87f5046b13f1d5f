package dev.nhc.engine.report;

import dev.nhc.model.CheckResult;
import dev.nhc.model.CheckStatus;
import dev.nhc.model.Entity;
import dev.nhc.model.Finding;
import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;
import dev.nhc.model.SlurmState;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads a verdict back from the object {@link JsonReport#toMap} wrote (the daemon keeps its last
 * one in the state directory and serves it again after a restart, until its checks have run).
 * What was written by an older nhc or edited by hand is checked: anything that does not read as a
 * finding is left out, and a verdict that cannot be read at all is null.
 */
public final class VerdictJson {
    private VerdictJson() {
    }

    /** The check results in {@code m}, with their findings; null when {@code m} is not a verdict. */
    public static Restored read(Object o) {
        if (!(o instanceof Map<?, ?> m) || !(m.get("checks") instanceof List<?> checks) || !(m.get("started") instanceof String started)) {
            return null;
        }
        Instant at;
        try {
            at = Instant.parse(started);
        } catch (DateTimeParseException e) {
            return null;
        }
        Map<String, List<Finding>> byCheck = new LinkedHashMap<>();
        if (m.get("findings") instanceof List<?> findings) {
            for (Object f : findings) {
                Finding finding = finding(f);
                if (finding != null) {
                    byCheck.computeIfAbsent(finding.check(), k -> new ArrayList<>()).add(finding);
                }
            }
        }
        List<CheckResult> results = new ArrayList<>();
        for (Object c : checks) {
            if (!(c instanceof Map<?, ?> cm) || !(cm.get("name") instanceof String name)) {
                continue;
            }
            Severity severity;
            CheckStatus status;
            try {
                severity = Severity.parse(String.valueOf(cm.get("severity")));
                status = status(String.valueOf(cm.get("status")));
            } catch (IllegalArgumentException e) {
                continue;
            }
            Set<String> tags = new LinkedHashSet<>();
            if (cm.get("tags") instanceof List<?> t) {
                t.forEach(x -> tags.add(String.valueOf(x)));
            }
            long ms = cm.get("duration_ms") instanceof Number n ? Math.max(0, n.longValue()) : 0;
            String note = cm.get("note") instanceof String s ? s : null;
            results.add(new CheckResult(name, String.valueOf(cm.get("probe")), tags, status, severity, ms,
                    byCheck.getOrDefault(name, List.of()), List.of(), note));
        }
        return new Restored(at, results);
    }

    /** A verdict's check results and when its run started. */
    public record Restored(Instant started, List<CheckResult> checks) {
    }

    private static CheckStatus status(String label) {
        for (CheckStatus s : CheckStatus.values()) {
            if (s.label().equals(label)) {
                return s;
            }
        }
        throw new IllegalArgumentException(label);
    }

    /**
     * A finding saved as {@link JsonReport#finding} writes it (an {@code every:} check's last
     * result), or null when the entry is unusable (hand-edited, of another version). Entries that
     * do not name their check, as nhc 0.1 saved them, get {@code check}.
     */
    public static Finding finding(Object o, String check) {
        if (o instanceof Map<?, ?> m && !(m.get("check") instanceof String)) {
            Map<Object, Object> named = new java.util.LinkedHashMap<>(m);
            named.put("check", check);
            o = named;
        }
        return finding(o);
    }

    private static Finding finding(Object o) {
        if (!(o instanceof Map<?, ?> f) || !(f.get("check") instanceof String check) || !(f.get("message") instanceof String message)) {
            return null;
        }
        try {
            Severity severity = Severity.parse(String.valueOf(f.get("severity")));
            Remedy remedy = f.get("remedy") == null ? Remedy.NONE : Remedy.parse(String.valueOf(f.get("remedy")));
            SlurmState slurm = f.get("slurm_state") == null ? null : SlurmState.parse(String.valueOf(f.get("slurm_state")));
            return new Finding(check, entity(f), severity, message, remedy, slurm, Map.of(), Boolean.TRUE.equals(f.get("latched")));
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static Entity entity(Map<?, ?> f) {
        String label = String.valueOf(f.get("entity"));
        Object kind = f.get("entity_kind");
        Object id = f.get("entity_id");
        Entity.Kind k = null;
        for (Entity.Kind x : Entity.Kind.values()) {
            if (x.label().equals(kind)) {
                k = x;
            }
        }
        if (k == Entity.Kind.NODE || (k == null && "node".equals(label))) {
            return Entity.NODE;
        }
        if (k == null || id == null) {
            return Entity.of(Entity.Kind.OTHER, label);
        }
        Object pci = f.get("pci_bus_id");
        return new Entity(k, String.valueOf(id), label, pci == null ? null : String.valueOf(pci));
    }
}
