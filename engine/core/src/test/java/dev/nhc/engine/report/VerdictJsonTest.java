package dev.nhc.engine.report;

import dev.nhc.model.Entity;
import dev.nhc.model.Finding;
import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;
import dev.nhc.model.SlurmState;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** A finding as an every: check saves it (JsonReport's form) and reads it back. */
class VerdictJsonTest {
    @Test
    void aSavedFindingComesBackWhole() {
        Finding f = new Finding("diag", Entity.gpu(3, "00000000:C5:00.0"), Severity.FAIL, "pcie test failed", Remedy.REBOOT,
                SlurmState.FAIL, Map.of());
        assertEquals(f, VerdictJson.finding(JsonReport.finding(f), "other"));
        Finding latched = f.withLatched(true);
        assertEquals(true, JsonReport.finding(latched).get("latched"));
        assertEquals(latched, VerdictJson.finding(JsonReport.finding(latched), "other"), "a restored verdict still knows what was latched");
        assertNull(JsonReport.finding(f).get("latched"), "reports name only latched findings so");
    }

    @Test
    void anEntryOfNhc01WithoutCheckOrEntityKindIsStillRead() {
        Finding f = VerdictJson.finding(Map.of("entity", "node", "severity", "warn", "message", "old", "remedy", "none"), "diag");
        assertEquals(new Finding("diag", Entity.NODE, Severity.WARN, "old", Remedy.NONE, null, Map.of()), f);
    }

    @Test
    void aHandEditedEntryIsDropped() {
        assertNull(VerdictJson.finding(Map.of("entity", "node", "severity", "awful", "message", "x"), "diag"));
        assertNull(VerdictJson.finding("not a map", "diag"));
    }
}
