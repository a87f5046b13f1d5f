package dev.nhc.checks.dcgm;

import dev.nhc.engine.state.StateSection;
import dev.nhc.model.Entity;
import dev.nhc.model.Observation;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LastDiagTest {
    /** A diag with many long DCGM messages is kept cut to what reading back accepts, not lost as "damaged". */
    @Test
    void aLongResultSurvivesSaveAndLoad() {
        StateSection state = StateSection.detached("diag");
        String results = "test 'GPU Memory' failed on GPU 1: " + "DBE detected during memory test; ".repeat(300);
        String skips = "skipped: ".repeat(1000);
        Observation node = Observation.of(Entity.NODE).put("level", 2L).put("failed", 1L).put("results", results)
                .put("skip_reasons", skips).put("runtime_error", "x".repeat(5000)).build();
        Instant at = Instant.parse("2026-11-22T00:00:00Z");
        LastDiag.save(state, at, 2, List.of(node));

        LastDiag.Kept kept = LastDiag.load(state);
        assertNull(kept.problem(), kept.problem());
        Observation back = kept.observations().get(0);
        assertEquals(1L, back.get("failed"));
        String r = (String) back.get("results");
        assertEquals(LastDiag.TEXT_MAX, r.length());
        assertTrue(r.startsWith("test 'GPU Memory' failed on GPU 1: DBE") && r.endsWith("…"), r);
        assertEquals(LastDiag.TEXT_MAX, ((String) back.get("runtime_error")).length());
    }

    @Test
    void aShortValueIsKeptAsItIs() {
        assertEquals("fine", LastDiag.cut("fine"));
        String s = "a".repeat(LastDiag.TEXT_MAX - 2) + "\uD83D\uDE00";    // a two-char emoji across the cut
        String c = LastDiag.cut(s + "b");
        assertTrue(c.length() <= LastDiag.TEXT_MAX && c.endsWith("a…"), c);
    }
}
