package dev.nhc.engine.check;

import dev.nhc.model.Entity;
import dev.nhc.model.Finding;
import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;
import dev.nhc.model.SlurmState;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

/** A finding as an every: check saves it and reads it back, and the forms nhc 0.1 saved. */
class SavedResultsTest {
    @Test
    void aSavedFindingComesBackWhole() {
        Finding f = new Finding("diag", Entity.gpu(3, "00000000:C5:00.0"), Severity.FAIL, "pcie test failed", Remedy.REBOOT,
                SlurmState.FAIL, Map.of());
        assertEquals(f, SavedResults.finding(SavedResults.finding(f), "other"));
    }

    /** What a saved finding said is shown again, but it is no latch of this boot: the repair ladder must not reboot for it. */
    @Test
    void aSavedLatchedFindingComesBackAsNoLatch() {
        Finding f = new Finding("xid", Entity.gpu(1, "0000:3b:00.0"), Severity.FAIL, "XID 79", Remedy.REBOOT, SlurmState.FAIL, Map.of(), true);
        Finding back = SavedResults.finding(SavedResults.finding(f), "other");
        assertEquals(f.withLatched(false), back);
        assertFalse(back.latched());
    }

    @Test
    void anEntryOfNhc01WithoutCheckOrEntityKindIsStillRead() {
        Finding f = SavedResults.finding(Map.of("entity", "node", "severity", "warn", "message", "old", "remedy", "none"), "diag");
        assertEquals(new Finding("diag", Entity.NODE, Severity.WARN, "old", Remedy.NONE, null, Map.of()), f);
    }

    @Test
    void aHandEditedEntryIsDropped() {
        assertNull(SavedResults.finding(Map.of("entity", "node", "severity", "awful", "message", "x"), "diag"));
        assertNull(SavedResults.finding("not a map", "diag"));
    }

    /** The daemon's verdict as nhc 0.1 saved it (the report's JSON, with observed values and null keys) still reads. */
    @Test
    void aVerdictSavedInTheReportsFormStillReads() {
        Map<String, Object> finding = new java.util.LinkedHashMap<>();
        finding.put("check", "gpu");
        finding.put("entity", "GPU 2");
        finding.put("entity_kind", "gpu");
        finding.put("entity_id", "2");
        finding.put("severity", "fail");
        finding.put("message", "gone");
        finding.put("remedy", "reboot");
        finding.put("slurm_state", null);
        finding.put("observed", Map.of("lost", true));
        Map<String, Object> saved = Map.of("node", "n1", "severity", "fail", "started", "2026-11-22T04:00:00Z", "duration_ms", 12,
                "findings", java.util.List.of(finding),
                "checks", java.util.List.of(Map.of("name", "gpu", "probe", "gpu.inventory", "tags", java.util.List.of("gpu"),
                        "status", "completed", "severity", "fail", "duration_ms", 12)));
        SavedResults.Restored r = SavedResults.verdict(saved);
        assertEquals(java.time.Instant.parse("2026-11-22T04:00:00Z"), r.started());
        assertEquals(Severity.FAIL, r.checks().get(0).severity());
        assertEquals(new Finding("gpu", Entity.gpu(2, null), Severity.FAIL, "gone", Remedy.REBOOT, null, Map.of()),
                r.checks().get(0).findings().get(0));
    }
}
