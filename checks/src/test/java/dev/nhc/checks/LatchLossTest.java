package dev.nhc.checks;

import dev.nhc.engine.state.StateSection;
import dev.nhc.probe.ProbeState;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LatchLossTest {
    private final ProbeState state = StateSection.detached("test");

    /** The same reason noted run after run is stored once. */
    @Test
    void aReasonNotedAgainIsKeptOnce() {
        for (int run = 0; run < 3; run++) {
            LatchLoss l = LatchLoss.load(state, "lost");
            l.note("1 saved entry is damaged");
            l.save(state, "lost");
            assertEquals("1 saved entry is damaged", l.reason(), "run " + run);
        }
        assertEquals("1 saved entry is damaged", state.get("lost"));
    }

    /** "state unreadable" written by an older nhc is the state's own, said by lostBecause(), not kept again. */
    @Test
    void theStatesOwnLossIsNotStored() {
        state.put("lost", "state unreadable: X; state unreadable: X; the boot id kept with them is invalid");
        LatchLoss l = LatchLoss.load(state, "lost");
        l.save(state, "lost");
        assertEquals("the boot id kept with them is invalid", state.get("lost"));
    }

    @Test
    void aLongReasonIsCutWithAMarkerAndStaysTheSame() {
        String longWhy = "x".repeat(500);
        LatchLoss l = LatchLoss.load(state, "lost");
        l.note(longWhy);
        l.save(state, "lost");
        String saved = (String) state.get("lost");
        assertEquals(LatchLoss.MAX + 1, saved.length());
        assertTrue(saved.endsWith("…"), saved);
        LatchLoss again = LatchLoss.load(state, "lost");
        again.save(state, "lost");
        assertEquals(saved, state.get("lost"), "read back as it was kept, not as 'an earlier run could not read them back'");
    }

    @Test
    void aValueThatIsNotTextIsALossOfItsOwn() {
        state.put("lost", 42L);
        assertEquals("an earlier run could not read them back", LatchLoss.load(state, "lost").reason());
        assertNull(LatchLoss.none().reason());
    }
}
