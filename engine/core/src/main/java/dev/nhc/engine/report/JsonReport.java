package dev.nhc.engine.report;

import com.fasterxml.jackson.jr.ob.JSON;
import dev.nhc.model.CheckResult;
import dev.nhc.model.Finding;
import dev.nhc.model.Verdict;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The machine-readable verdict: exactly one JSON object, the same for {@code nhc run --json},
 * {@code nhc replay --json} and the daemon's {@code /v1/verdict}. Keys stay stable; new keys may be added.
 */
public final class JsonReport {
    private JsonReport() {
    }

    public static Map<String, Object> toMap(Verdict v, List<String> notes) {
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
        if (!notes.isEmpty()) {
            m.put("notes", List.copyOf(notes));
        }
        return m;
    }

    public static Map<String, Object> finding(Finding f) {
        Map<String, Object> fm = new LinkedHashMap<>();
        fm.put("check", f.check());
        fm.put("entity", f.entity().label());
        fm.put("entity_kind", f.entity().kind().label());
        fm.put("entity_id", f.entity().id());
        if (f.entity().pciBusId() != null) {
            fm.put("pci_bus_id", f.entity().pciBusId());
        }
        fm.put("severity", f.severity().label());
        fm.put("message", f.message());
        fm.put("remedy", f.remedy().label());
        fm.put("slurm_state", f.slurmState() == null ? null : f.slurmState().label());
        if (f.latched()) {
            fm.put("latched", true);
        }
        fm.put("observed", f.observed());
        return fm;
    }

    public static String render(Verdict v, List<String> notes) {
        try {
            return JSON.std.with(JSON.Feature.WRITE_NULL_PROPERTIES).asString(toMap(v, notes));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
