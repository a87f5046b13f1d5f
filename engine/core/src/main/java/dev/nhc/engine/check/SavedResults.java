package dev.nhc.engine.check;

import dev.nhc.model.CheckResult;
import dev.nhc.model.CheckStatus;
import dev.nhc.model.Entity;
import dev.nhc.model.Finding;
import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;
import dev.nhc.model.SlurmState;
import dev.nhc.model.Verdict;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * How results are kept in the state directory: the findings an {@code every:} check carries over
 * between its runs, and the verdict the daemon serves again after a restart until its checks have
 * run. This is the persistence format, apart from the report's JSON (which may change for its
 * readers without touching what a node has saved); its keys are the ones nhc 0.1 wrote, so state
 * written before reads the same. What is read back was maybe written by an older nhc or edited by
 * hand, so it is checked: anything that does not read as a finding is left out, and a verdict that
 * cannot be read at all is null.
 */
public final class SavedResults {
    private SavedResults() {
    }

    /** A finding as saved: what it says, without what it observed (a carried-over finding shows no values). */
    public static Map<String, Object> finding(Finding f) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("check", f.check());
        m.put("entity", f.entity().label());
        m.put("entity_kind", f.entity().kind().label());
        m.put("entity_id", f.entity().id());
        if (f.entity().pciBusId() != null) {
            m.put("pci_bus_id", f.entity().pciBusId());
        }
        m.put("severity", f.severity().label());
        m.put("message", f.message());
        m.put("remedy", f.remedy().label());
        if (f.slurmState() != null) {
            m.put("slurm_state", f.slurmState().label());
        }
        return m;
    }

    /** A verdict as the daemon saves it: when, what each check's result was, and the findings. */
    public static Map<String, Object> verdict(Verdict v) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("node", v.node());
        m.put("severity", v.severity().label());
        m.put("started", v.started().toString());
        m.put("duration_ms", v.durationMs());
        List<Object> findings = new ArrayList<>();
        for (Finding f : v.findings()) {
            findings.add(finding(f));
        }
        m.put("findings", findings);
        List<Object> checks = new ArrayList<>();
        for (CheckResult c : v.checks()) {
            Map<String, Object> cm = new LinkedHashMap<>();
            cm.put("name", c.name());
            cm.put("probe", c.probe());
            cm.put("tags", List.copyOf(c.tags()));
            cm.put("status", c.status().label());
            cm.put("severity", c.severity().label());
            cm.put("duration_ms", c.durationMs());
            if (c.note() != null) {
                cm.put("note", c.note());
            }
            checks.add(cm);
        }
        m.put("checks", checks);
        return m;
    }

    /** The check results in {@code o}, with their findings; null when {@code o} is not a saved verdict. */
    public static Restored verdict(Object o) {
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

    /** A saved verdict's check results and when its run started. */
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
     * A finding saved by {@link #finding(Finding)}, or null when the entry is unusable (hand-edited,
     * of another version). Entries that do not name their check, as nhc 0.1 saved them, get {@code check}.
     */
    public static Finding finding(Object o, String check) {
        if (o instanceof Map<?, ?> m && !(m.get("check") instanceof String)) {
            Map<Object, Object> named = new LinkedHashMap<>(m);
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
            // Never latched: a saved finding may be from before a reboot (an every: check carried over, the
            // daemon's verdict restored at start), and the repair ladder reboots only for a latch seen in this boot.
            return new Finding(check, entity(f), severity, message, remedy, slurm, Map.of());
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
