package dev.nhc.checks.gpu.fabric;

import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FabricErrorGroupTest {
    /** The log may carry an SXid of any length: its latch survives save and load instead of turning "damaged". */
    @Test
    void aLatchWithAVeryLongSxidSurvivesSaveAndLoad() {
        FabricError e = new FabricError(FabricError.Device.NVSWITCH, "0000:c4:00.0", true, "9".repeat(300), 6L, 17L,
                "Jul 23 2024 07:53:55", null);
        FabricErrorGroup g = FabricErrorGroup.of(e);
        Map<String, FabricErrorGroup> groups = new LinkedHashMap<>();
        groups.put(g.key(), g);
        Object saved = FabricErrorGroup.toState(groups);

        Map<String, FabricErrorGroup> back = new LinkedHashMap<>();
        assertNull(FabricErrorGroup.load(saved, "fm.latched", back));
        assertEquals(1, back.size());
        FabricErrorGroup read = back.get(g.key());
        assertEquals(1L, read.lines());
        assertEquals(g.detail(), read.detail());
        assertTrue(read.detail().startsWith("SXid 999") && read.detail().contains("…"), read.detail());
    }

    /** A device name past the limit is cut the same way every time, so the same device keeps one key. */
    @Test
    void aLongDeviceKeepsOneKey() {
        String guid = "0x" + "a".repeat(400);
        FabricError e = new FabricError(FabricError.Device.GPU, guid, true, "0x02", null, 61L, null, null);
        FabricErrorGroup g = FabricErrorGroup.of(e);
        assertEquals(FabricErrorGroup.key(FabricError.Device.GPU, guid), g.key());
        Object saved = FabricErrorGroup.toState(Map.of(g.key(), g));
        Map<String, FabricErrorGroup> back = new LinkedHashMap<>();
        assertNull(FabricErrorGroup.load(saved, "fm.latched", back));
        assertTrue(back.containsKey(g.key()));
    }
}
