package dev.nhc.checks.gpu.fabric;

import org.junit.jupiter.api.Test;

import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The fabric manager's error lines, in the forms nv-fabricmanager writes them (lines written for this test). */
class FabricManagerLogParserTest {
    private static final ZoneId ZONE = ZoneOffset.ofHours(2);

    private static List<FabricError> parse(String... lines) {
        List<FabricError> out = new ArrayList<>();
        FabricManagerLogParser p = new FabricManagerLogParser(ZONE, out::add);
        for (String l : lines) {
            p.line(l);
        }
        p.finish();
        return out;
    }

    @Test
    void aFatalNvswitchErrorNamesItsSxidSwitchAndPortWithTheLogsLocalTime() {
        List<FabricError> e = parse("[Mar 04 2026 11:20:31] [ERROR] [tid 5120] detected NVSwitch fatal error 24007 on fid 0 "
                + "on NVSwitch pci bus id 00000000:C4:00.0 physical id 6 port 17");
        assertEquals(1, e.size());
        FabricError f = e.get(0);
        assertEquals(FabricError.Device.NVSWITCH, f.kind());
        assertEquals("0000:c4:00.0", f.device(), "the bus id in nhc's one spelling");
        assertTrue(f.fatal());
        assertEquals("24007", f.code());
        assertEquals(6L, f.physicalId());
        assertEquals(17L, f.port());
        assertEquals("Mar 04 2026 11:20:31", f.stamp());
        assertEquals(LocalDateTime.of(2026, 3, 4, 11, 20, 31).atZone(ZONE).toInstant(), f.time());
        assertEquals("SXid 24007 (sourcetrack timeout error) on port 17", f.what());
    }

    @Test
    void nonFatalErrorsAndTheSharedNvswitchPartitionFormAreRead() {
        List<FabricError> e = parse(
                "[Mar 04 2026 11:22:09] [ERROR] [tid 5120] detected NVSwitch non-fatal error 19084 on fid 0 on NVSwitch pci bus id "
                        + "00000000:C5:00.0 physical id 7 port 40",
                "[Mar 04 2026 11:22:10] [ERROR] [tid 5120] detected NVSwitch fatal error 22013 on partition 3 NVSwitch pci bus id "
                        + "00000000:C6:00.0 physical id 8 port 2");
        assertEquals(2, e.size());
        assertFalse(e.get(0).fatal());
        assertEquals("19084", e.get(0).code());
        assertEquals("0000:c5:00.0", e.get(0).device());
        assertTrue(e.get(1).fatal());
        assertEquals("0000:c6:00.0", e.get(1).device());
        assertEquals(8L, e.get(1).physicalId());
        assertEquals(2L, e.get(1).port());
    }

    @Test
    void theSyslogCopyOfALineIsReadWithoutATime() {
        List<FabricError> e = parse("Mar  4 11:20:31 gpu-017 nv-fabricmanager[5120]: detected NVSwitch fatal error 24007 on fid 0 "
                + "on NVSwitch pci bus id 00000000:C4:00.0 physical id 6 port 17");
        assertEquals(1, e.size());
        assertNull(e.get(0).stamp());
        assertNull(e.get(0).time(), "a syslog stamp has no year: the error is judged, not dated");
    }

    @Test
    void aLineWithoutABusIdNamesTheSwitchByPhysicalId() {
        List<FabricError> e = parse("[Mar 04 2026 11:20:31] [ERROR] [tid 1] detected NVSwitch fatal error 24007 physical id 6 port 17");
        assertEquals("physical id 6", e.get(0).device());
    }

    @Test
    void aGpuNvlinkErrorBlockGivesItsGuidPortAndErrorCode() {
        List<FabricError> e = parse(
                "[Mar 05 2026 02:10:44] [ERROR] [tid 311] Fabric Manager detected GPU NVL Fatal error on :",
                "moduleId : 2",
                "gpuGuid : 0x7A11C0FFEE000042",
                "portNum : 12",
                "errorCode : 0x05",
                "errorSubcode : 0x01",
                "",
                "[Mar 05 2026 02:10:45] [INFO] [tid 311] something else");
        assertEquals(1, e.size());
        FabricError f = e.get(0);
        assertEquals(FabricError.Device.GPU, f.kind());
        assertEquals("0x7a11c0ffee000042", f.device());
        assertTrue(f.fatal());
        assertEquals("0x05", f.code());
        assertEquals(12L, f.port());
        assertEquals("NVLink errorCode 0x05 on port 12", f.what());
    }

    @Test
    void aGpuBlockEndsAtTheNextStampedLineAndANonFatalOneIsNotFatal() {
        List<FabricError> e = parse(
                "[Mar 05 2026 02:10:44] [ERROR] [tid 311] Fabric Manager detected GPU NVL Non Fatal error on :",
                "gpuGuid : 0x0000000000000abc",
                "[Mar 05 2026 02:10:45] [ERROR] [tid 5120] detected NVSwitch non-fatal error 19084 on fid 0 on NVSwitch pci bus id "
                        + "00000000:C5:00.0 physical id 7 port 40");
        assertEquals(2, e.size());
        assertFalse(e.get(0).fatal());
        assertEquals("0x0000000000000abc", e.get(0).device());
        assertNull(e.get(0).code(), "no errorCode line: no number");
        assertEquals(FabricError.Device.NVSWITCH, e.get(1).kind());
    }

    @Test
    void aGpuBlockWithoutDetailsStillCountsAndValuesThatAreNotNumbersAreNotTaken() {
        List<FabricError> e = parse("[Mar 05 2026 02:10:44] [ERROR] [tid 311] Fabric Manager detected GPU NVL Fatal error on :",
                "gpuGuid : not-a-guid", "portNum : 99999999999999");
        assertEquals(1, e.size());
        assertEquals("unknown GPU", e.get(0).device());
        assertNull(e.get(0).port());
    }

    @Test
    void otherLinesAreNotErrors() {
        assertTrue(parse(
                "[Mar 04 2026 11:00:00] [INFO] [tid 5120] Fabric Manager version 550.90.07 is running with the following configuration options",
                "[Mar 04 2026 11:00:02] [INFO] [tid 5120] Successfully configured all the available NVSwitches to route GPU NVLink traffic.",
                "[Mar 04 2026 11:00:03] [ERROR] [tid 5120] request to query NVSwitch device information from NVSwitch driver failed",
                "detected NVSwitch fatal error on fid 0",
                "").isEmpty());
    }

    @Test
    void aStampThatIsNoDateLeavesTheErrorUndated() {
        List<FabricError> e = parse("[Feb 31 2026 11:20:31] [ERROR] [tid 1] detected NVSwitch fatal error 24007 on fid 0 on NVSwitch "
                + "pci bus id 00000000:C4:00.0 physical id 6 port 17");
        assertEquals("Feb 31 2026 11:20:31", e.get(0).stamp());
        assertNull(e.get(0).time());
    }
}
