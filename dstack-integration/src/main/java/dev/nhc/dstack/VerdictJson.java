package dev.nhc.dstack;

import com.fasterxml.jackson.jr.ob.JSON;
import dev.nhc.engine.model.CheckResult;
import dev.nhc.engine.model.Finding;
import dev.nhc.engine.model.Observation;
import dev.nhc.engine.model.Verdict;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The verdict as JSON for {@code GET /v1/verdict} and the state file. Stands in for the engine's
 * JsonReport (the body of {@code nhc run --json}) until that is on main; then this delegates to it.
 */
public final class VerdictJson {
    private VerdictJson() {
    }

    public static byte[] bytes(Verdict v) throws IOException {
        return JSON.std.asBytes(toMap(v));
    }

    /** Plain maps, lists, strings and numbers only: also what the state store writes as YAML. */
    public static Map<String, Object> toMap(Verdict v) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("node", v.node());
        m.put("started", v.started().toString());
        m.put("duration_ms", v.durationMs());
        m.put("severity", v.severity().label());
        List<Object> checks = new ArrayList<>();
        for (CheckResult c : v.checks()) {
            Map<String, Object> cm = new LinkedHashMap<>();
            cm.put("name", c.name());
            cm.put("probe", c.probe());
            cm.put("status", c.status().label());
            cm.put("severity", c.severity().label());
            cm.put("duration_ms", c.durationMs());
            if (c.note() != null) {
                cm.put("note", c.note());
            }
            List<Object> findings = new ArrayList<>();
            for (Finding f : c.findings()) {
                Map<String, Object> fm = new LinkedHashMap<>();
                fm.put("check", f.check() != null ? f.check() : c.name());
                fm.put("entity", f.entity());
                fm.put("severity", f.severity().label());
                fm.put("message", f.message());
                fm.put("remedy", f.remedy().label());
                if (f.slurmState() != null) {
                    fm.put("slurm_state", f.slurmState().label());
                }
                if (!f.observed().isEmpty()) {
                    fm.put("observed", new LinkedHashMap<>(f.observed()));
                }
                findings.add(fm);
            }
            cm.put("findings", findings);
            List<Object> observations = new ArrayList<>();
            for (Observation o : c.observations()) {
                Map<String, Object> om = new LinkedHashMap<>();
                om.put("entity", o.entity());
                om.put("fields", new LinkedHashMap<>(o.fields()));
                observations.add(om);
            }
            cm.put("observations", observations);
            checks.add(cm);
        }
        m.put("checks", checks);
        return m;
    }
}
