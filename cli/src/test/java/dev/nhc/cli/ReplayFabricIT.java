package dev.nhc.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code nhc replay --fabricmanager-log} and the Fabric section of an nvidia-smi capture, through the packaged bin/nhc. */
class ReplayFabricIT {
    @TempDir
    Path dir;

    private Path config() throws Exception {
        Path c = dir.resolve("nhc.yaml");
        Files.writeString(c, "nhc: 1\nchecks:\n  - { name: fabric, use: gpu.fabric }\n  - { name: ecc, use: gpu.ecc }\n");
        return c;
    }

    private Path fmLog(String... lines) throws Exception {
        Path log = dir.resolve("fabricmanager.log");
        Files.writeString(log, String.join("\n", lines) + "\n");
        return log;
    }

    /** One GPU's nvidia-smi -q, in nvidia-smi's layout, with this fabric state. */
    private Path smiQ(String state) throws Exception {
        Path q = dir.resolve("smi-q.txt");
        Files.writeString(q, "\n==============NVSMI LOG==============\n\n"
                + "Timestamp                                 : Wed Mar  4 11:30:00 2026\n"
                + "Driver Version                            : 570.124.06\n\n"
                + "Attached GPUs                             : 1\n"
                + "GPU 00000000:18:00.0\n"
                + "    Product Name                          : NVIDIA H100 80GB HBM3\n"
                + "    GPU UUID                              : GPU-1111aaaa-2222-3333-4444-000000000000\n"
                + "    Fabric\n"
                + "        State                             : " + state + "\n"
                + "        Status                            : N/A\n"
                + "        CliqueId                          : N/A\n"
                + "        ClusterUUID                       : N/A\n"
                + "    Processes                             : None\n");
        return q;
    }

    @Test
    void aFatalNvswitchErrorInAnAttachedFabricManagerLogFails() throws Exception {
        Path log = fmLog("[Mar 04 2026 11:00:02] [INFO] [tid 5120] Successfully configured all the available NVSwitches to route GPU NVLink traffic.",
                "[Mar 04 2026 11:20:31] [ERROR] [tid 5120] detected NVSwitch fatal error 24007 on fid 0 on NVSwitch pci bus id "
                        + "00000000:C4:00.0 physical id 6 port 17");
        NhcProcess.Result r = NhcProcess.run(dir, Map.of(), "replay", "--verbose", "-c", config().toString(),
                "--fabricmanager-log", log.toString());
        assertEquals(1, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains("FAIL    fabric: NVSwitch 0000:c4:00.0 (physical id 6): fatal error SXid 24007 (sourcetrack timeout error) on port 17 "
                + "(1 line, at Mar 04 2026 11:20:31); stays failing until reboot or `nhc clear fabric` [remedy: reboot]"), r.out());
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith("SKIP    ecc")), r.out());
        assertTrue(r.out().contains("replayed fabric manager log " + log), r.out());
    }

    @Test
    void aGpuStillJoiningTheFabricInTheCaptureWarnsWithTheLogsNonFatalError() throws Exception {
        Path log = fmLog("[Mar 04 2026 11:22:09] [ERROR] [tid 5120] detected NVSwitch non-fatal error 19084 on fid 0 on NVSwitch "
                + "pci bus id 00000000:C5:00.0 physical id 7 port 40");
        NhcProcess.Result r = NhcProcess.run(dir, Map.of(), "replay", "--json", "-c", config().toString(),
                "--nvidia-smi-q", smiQ("In Progress").toString(), "--fabricmanager-log", log.toString());
        assertEquals(0, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains("\"severity\":\"warn\""), r.out());
        assertTrue(r.out().contains("NVLink fabric registration still in progress"), r.out());
        assertTrue(r.out().contains("non-fatal error SXid 19084 (AN1 Heartbeat Timeout Error) on port 40"), r.out());
    }

    @Test
    void aCaptureAloneFeedsTheFabricCheckAndAWordNvidiaSmiDoesNotPrintIsNotAPass() throws Exception {
        NhcProcess.Result notStarted = NhcProcess.run(dir, Map.of(), "replay", "-c", config().toString(),
                "--nvidia-smi-q", smiQ("Not Started").toString());
        assertEquals(1, notStarted.exit(), notStarted.out() + notStarted.err());
        assertTrue(notStarted.out().contains("not registered with the NVLink fabric"), notStarted.out());

        NhcProcess.Result garbled = NhcProcess.run(dir, Map.of(), "replay", "-c", config().toString(),
                "--nvidia-smi-q", smiQ("Maybe Later").toString());
        assertEquals(0, garbled.exit(), garbled.out() + garbled.err());
        assertTrue(garbled.out().contains("UNKNOWN fabric: GPU 0: the capture "), garbled.out());
        assertTrue(garbled.out().contains("line 12: expected a fabric state (Not Started, In Progress, Completed or N/A) for 'State', found 'Maybe Later'"),
                garbled.out());
    }

    @Test
    void aFabricManagerLogThatIsNotThereIsAUsageError() throws Exception {
        NhcProcess.Result r = NhcProcess.run(dir, Map.of(), "replay", "-c", config().toString(),
                "--fabricmanager-log", dir.resolve("nope.log").toString());
        assertEquals(2, r.exit());
        assertTrue(r.err().contains("cannot read " + dir.resolve("nope.log") + ": no such file; nothing was judged"), r.err());
    }

    @Test
    void nhcListDocumentsTheProbeWithItsDefaultRules() throws Exception {
        NhcProcess.Result r = NhcProcess.run(dir, Map.of(), "list", "gpu.fabric");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("tags: gpu, nvml, nvswitch, fabric"), r.out());
        assertTrue(r.out().contains("fabric_manager       required|optional|ignore"), r.out());
        assertTrue(r.out().contains("fail: { fabric_state: not-started }"), r.out());
        assertTrue(r.out().contains("fail: { required: true, active: false }"), r.out());
        assertTrue(r.out().contains("fail: { fatal_errors: \"> 0\" }  remedy: reboot"), r.out());
        assertTrue(r.out().contains("warn: { nonfatal_errors: \"> 0\" }"), r.out());
    }
}
