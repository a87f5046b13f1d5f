package dev.nhc.checks.gpu.xid;

import dev.nhc.model.Finding;
import dev.nhc.model.Observation;
import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;
import dev.nhc.model.SlurmState;
import dev.nhc.probe.ProbeResult;
import dev.nhc.engine.state.StateSection;
import dev.nhc.engine.state.StateStore;
import dev.nhc.engine.testing.TestProbeContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class GpuXidProbeTest {
    private static final String LOG = "/var/log/kern.log";
    @TempDir
    Path root;
    private final GpuXidProbe probe = new GpuXidProbe();

    private TestProbeContext ctx(StateSection state, Map<String, Object> with) throws IOException {
        TestProbeContext c = new TestProbeContext(root).state(state).checkName("xid");
        Map<String, Object> params = new HashMap<>(Map.of("log", LOG));
        params.putAll(with);
        c.params(params);
        if (!Files.exists(c.sys("/proc/sys/kernel/random/boot_id"))) {
            c.write("/proc/sys/kernel/random/boot_id", "boot-1\n");
        }
        return c;
    }

    private Path log(String text) throws IOException {
        Path p = root.resolve(LOG.substring(1));
        Files.createDirectories(p.getParent());
        Files.writeString(p, text, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        return p;
    }

    private static Optional<Finding> finding(ProbeResult r, String entity) {
        return r.findings().stream().filter(f -> f.entity().equals(entity)).findFirst();
    }

    private static Severity worst(ProbeResult r) {
        return r.findings().stream().map(Finding::severity).reduce(Severity.PASS, Severity::worst);
    }

    private static Observation kernelLog(ProbeResult r) {
        return r.observations().stream().filter(o -> o.entity().equals("kernel log")).findFirst().orElseThrow();
    }

    @Test
    void doubleBitEccFailsWithResetGpu() throws Exception {
        log("[100.000000] NVRM: Xid (PCI:0000:3b:00): 48, pid='<unknown>', name=<unknown>, An uncorrectable double bit error (DBE)\n");
        ProbeResult r = probe.probe(ctx(StateSection.detached("s"), Map.of()));
        Finding f = finding(r, "GPU at PCI 0000:3b:00.0").orElseThrow();
        assertEquals(Severity.FAIL, f.severity());
        assertEquals(Remedy.RESET_GPU, f.remedy());
        assertTrue(f.message().startsWith("XID 48 (double-bit ECC error)"), f.message());
        assertTrue(f.message().contains("nhc clear xid"), f.message());
    }

    /** Issue 13 item 5: a damaged cursor made every run UNKNOWN ("Java heap space") and missed the next XID. */
    @Test
    void aDamagedCursorInStateIsResetWithAWarningAndTheNextXidStillFails() throws Exception {
        StateSection s = StateSection.detached("s");
        log("[1.0] usb 1-1: new device\n");
        assertEquals(Severity.PASS, worst(probe.probe(ctx(s, Map.of()))));
        s.put("log.head_len", 300_000_000L);
        log("[2.0] NVRM: Xid (PCI:0000:3b:00): 79, pid=0, name=python, GPU has fallen off the bus.\n");

        ProbeResult r = probe.probe(ctx(s, Map.of()));

        assertEquals(Severity.FAIL, finding(r, "GPU at PCI 0000:3b:00.0").orElseThrow().severity());
        Finding warning = finding(r, "kernel log").orElseThrow();
        assertEquals(Severity.WARN, warning.severity());
        assertEquals("kernel log cursor: state value log.head_len = 300000000 is invalid (expected a whole number in 0..256); reset it",
                warning.message());
        assertTrue(finding(probe.probe(ctx(s, Map.of())), "kernel log").isEmpty(), "the cursor is whole again");
    }

    /** Issue 13 item 6: a line of 64 MiB of NUL padding blinded the check for good. */
    @Test
    void anXidAfterAHugeRunOfNulPaddingIsFound() throws Exception {
        Path p = log("[1.0] before the crash\n");
        byte[] nuls = new byte[1 << 20];
        try (var out = Files.newOutputStream(p, StandardOpenOption.APPEND)) {
            for (int i = 0; i < 65; i++) {
                out.write(nuls);
            }
        }
        log("[2.0] NVRM: Xid (PCI:0000:3b:00): 79, pid=0, name=python, GPU has fallen off the bus.\n");
        ProbeResult r = probe.probe(ctx(StateSection.detached("s"), Map.of()).budget(java.time.Duration.ofSeconds(60)));
        assertEquals(Severity.FAIL, finding(r, "GPU at PCI 0000:3b:00.0").orElseThrow().severity());
        assertEquals(0L, kernelLog(r).get("truncated_lines"));
    }

    @Test
    void pciAddressMapsToTheGpuIndexWhenTheInventoryKnowsIt() throws Exception {
        log("[1.0] NVRM: Xid (PCI:0000:3B:00): 48, x\n[2.0] NVRM: Xid (PCI:0000:af:00): 48, y\n");
        PciToGpu inventory = bus -> bus.equals("0000:3b:00") ? Optional.of(3) : Optional.empty();
        ProbeResult r = probe.probe(ctx(StateSection.detached("s"), Map.of()).service(PciToGpu.class, inventory));
        assertEquals(Severity.FAIL, finding(r, "GPU 3").orElseThrow().severity());
        // An address that matches no GPU is still reported, by address.
        assertEquals(Severity.FAIL, finding(r, "GPU at PCI 0000:af:00.0").orElseThrow().severity());
    }

    @Test
    void fallenOffTheBusIsXid79AskingForRebootAndSlurmFail() throws Exception {
        log("Nov 15 05:39:15 gpu-001 kernel: NVRM: GPU at PCI:0000:5e:00: GPU has fallen off the bus.\n");
        ProbeResult r = probe.probe(ctx(StateSection.detached("s"), Map.of()));
        Finding f = finding(r, "GPU at PCI 0000:5e:00.0").orElseThrow();
        assertEquals(Severity.FAIL, f.severity());
        assertEquals(Remedy.REBOOT, f.remedy());
        assertEquals(SlurmState.FAIL, f.slurmState());
        assertTrue(f.message().startsWith("XID 79 (GPU has fallen off the bus)"), f.message());
    }

    @Test
    void applicationXidsNeverFailTheNode() throws Exception {
        log("[1.0] NVRM: Xid (PCI:0000:38:00): 13, pid='<unknown>', name=<unknown>, Graphics SM Warp Exception\n"
                + "[1.1] NVRM: Xid (PCI:0000:38:00): 43, pid=2924364, name=pt_main_thread, Ch 00000008\n"
                + "[1.2] NVRM: Xid (PCI:0000:38:00): 45, pid=2924364, name=pt_main_thread, Ch 00000008\n");
        ProbeResult r = probe.probe(ctx(StateSection.detached("s"), Map.of("fail", List.of(13L))));
        assertEquals(3L, kernelLog(r).get("application_xids"));
        // Even listed under fail: a warning at most.
        assertEquals(Severity.WARN, worst(r));
        assertEquals(Severity.WARN, finding(r, "GPU at PCI 0000:38:00.0").orElseThrow().severity());

        log("[1.3] NVRM: Xid (PCI:0000:38:00): 13, again\n");
        ProbeResult second = probe.probe(ctx(StateSection.detached("t"), Map.of()));
        assertEquals(Severity.PASS, worst(second));
    }

    @Test
    void nvlink5LinesFailOnlyWhenTheySayFatal() throws Exception {
        log("[1.0] NVRM: Xid (PCI:0009:01:00): 149, NETIR_LINK_EVT  Fatal   XC0 i0 Link 01 (0x021425c6)\n"
                + "[1.1] NVRM: Xid (PCI:0008:01:00): 149, NETIR_LINK_EVT  Non-fatal   XC0 i0 Link 02 (0x0)\n");
        ProbeResult r = probe.probe(ctx(StateSection.detached("s"), Map.of()));
        assertEquals(Severity.FAIL, finding(r, "GPU at PCI 0009:01:00.0").orElseThrow().severity());
        assertEquals(Severity.WARN, finding(r, "GPU at PCI 0008:01:00.0").orElseThrow().severity());
    }

    @Test
    void xid154FollowsTheRecoveryAction() throws Exception {
        StateSection s = StateSection.detached("s");
        log("[1.0] NVRM: Xid (PCI:0009:01:00): 154, GPU recovery action changed from 0x0 (None) to 0x4 (Drain and Reset)\n"
                + "[1.1] NVRM: Xid (PCI:0019:01:00): 154, GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)\n"
                + "[1.2] NVRM: Xid (PCI:0029:01:00): 154, GPU recovery action changed from 0x0 (None) to 0x3 (Drain P2P)\n");
        ProbeResult r = probe.probe(ctx(s, Map.of()));
        Finding reset = finding(r, "GPU at PCI 0009:01:00.0").orElseThrow();
        assertEquals(Severity.FAIL, reset.severity());
        assertEquals(Remedy.RESET_GPU, reset.remedy());
        Finding reboot = finding(r, "GPU at PCI 0019:01:00.0").orElseThrow();
        assertEquals(Severity.FAIL, reboot.severity());
        assertEquals(Remedy.REBOOT, reboot.remedy());
        assertEquals(Severity.WARN, finding(r, "GPU at PCI 0029:01:00.0").orElseThrow().severity());

        // Latched until the driver says the action is back to None.
        assertEquals(Severity.FAIL, finding(probe.probe(ctx(s, Map.of())), "GPU at PCI 0009:01:00.0").orElseThrow().severity());
        log("[2.0] NVRM: Xid (PCI:0009:01:00): 154, GPU recovery action changed from 0x4 (Drain and Reset) to 0x0 (None)\n");
        ProbeResult after = probe.probe(ctx(s, Map.of()));
        assertTrue(finding(after, "GPU at PCI 0009:01:00.0").isEmpty(), after.findings().toString());
        assertEquals(Severity.FAIL, finding(after, "GPU at PCI 0019:01:00.0").orElseThrow().severity());
    }

    @Test
    void configOverridesTheTable() throws Exception {
        log("[1.0] NVRM: Xid (PCI:0000:01:00): 31, page fault\n[1.1] NVRM: Xid (PCI:0000:02:00): 48, dbe\n"
                + "[1.2] NVRM: Xid (PCI:0000:03:00): 79, off\n[1.3] NVRM: Xid (PCI:0000:04:00): 999, brand new\n");
        ProbeResult r = probe.probe(ctx(StateSection.detached("s"),
                Map.of("fail", List.of(31L), "warn", List.of(48L), "ignore", List.of(79L))));
        assertEquals(Severity.FAIL, finding(r, "GPU at PCI 0000:01:00.0").orElseThrow().severity());
        assertEquals(Severity.WARN, finding(r, "GPU at PCI 0000:02:00.0").orElseThrow().severity());
        assertTrue(finding(r, "GPU at PCI 0000:03:00.0").isEmpty());
        // An XID in no list is a warning, not dropped.
        assertEquals(Severity.WARN, finding(r, "GPU at PCI 0000:04:00.0").orElseThrow().severity());
    }

    @Test
    void nvswitchSxidsFailWhenFatal() throws Exception {
        log("[1.0] nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 24007, Fatal, Link 44 sourcetrack timeout error (First)\n"
                + "[1.1] nvidia-nvswitch1: SXid (PCI:0000:06:00.0): 12028, Non-fatal, Link 32 egress non-posted PRIV error\n");
        ProbeResult r = probe.probe(ctx(StateSection.detached("s"), Map.of()));
        assertEquals(Severity.FAIL, finding(r, "NVSwitch at PCI 0000:05:00.0").orElseThrow().severity());
        assertEquals(Severity.WARN, finding(r, "NVSwitch at PCI 0000:06:00.0").orElseThrow().severity());
    }

    @Test
    void aLatchedXidSurvivesTenRunsAndClearsOnANewBootId() throws Exception {
        StateSection s = StateSection.detached("s");
        log("[5.0] NVRM: Xid (PCI:0000:3b:00): 119, pid=1, name=x, Timeout after 6s of waiting for RPC response from GPU4 GSP!\n");
        assertEquals(Severity.FAIL, worst(probe.probe(ctx(s, Map.of()))));
        for (int run = 0; run < 10; run++) {
            ProbeResult r = probe.probe(ctx(s, Map.of()));
            assertEquals(0L, kernelLog(r).get("lines_read"), "run " + run + " read old lines again");
            Finding f = finding(r, "GPU at PCI 0000:3b:00.0").orElseThrow();
            assertEquals(Severity.FAIL, f.severity(), "run " + run);
            assertEquals(0L, r.observations().stream().filter(o -> o.entity().equals("GPU at PCI 0000:3b:00.0")).findFirst().orElseThrow().get("xid_new"));
        }
        Files.writeString(root.resolve("proc/sys/kernel/random/boot_id"), "boot-2\n");
        ProbeResult rebooted = probe.probe(ctx(s, Map.of()));
        assertEquals(Severity.PASS, worst(rebooted), rebooted.findings().toString());
        assertEquals(null, s.get(GpuXidProbe.LATCHED));
    }

    @Test
    void clearForgetsTheLatchButKeepsTheCursorSoOldLinesDoNotLatchAgain() throws Exception {
        StateSection s = StateSection.detached("s");
        log("[5.0] NVRM: Xid (PCI:0000:3b:00): 79, pid=1, x\n");
        assertEquals(Severity.FAIL, worst(probe.probe(ctx(s, Map.of()))));
        probe.clear(s);
        assertNotNull(s.get("log.offset"));
        ProbeResult r = probe.probe(ctx(s, Map.of()));
        assertEquals(Severity.PASS, worst(r), r.findings().toString());
        // A new fatal XID after the clear latches again.
        log("[6.0] NVRM: Xid (PCI:0000:3b:00): 79, pid=1, again\n");
        assertEquals(Severity.FAIL, worst(probe.probe(ctx(s, Map.of()))));
    }

    @Test
    void aClearedSectionForgetsTheLatchOfAnXidNoLongerInTheLog() throws Exception {
        StateSection s = StateSection.detached("s");
        Path kmsg = root.resolve("dev/kmsg");
        Files.createDirectories(kmsg.getParent());
        Files.writeString(kmsg, "3,10,5000000,-;NVRM: Xid (PCI:0000:3b:00): 48, dbe\n");
        assertEquals(Severity.FAIL, worst(probe.probe(ctx(s, Map.of("log", "kmsg")))));
        Files.writeString(kmsg, "6,11,6000000,-;usb 1-1: new device\n"); // the ring buffer moved on
        assertEquals(Severity.FAIL, worst(probe.probe(ctx(s, Map.of("log", "kmsg")))));
        s.clear();
        assertEquals(Severity.PASS, worst(probe.probe(ctx(s, Map.of("log", "kmsg")))));
    }

    @Test
    void aLatchSurvivesARestartOfNhcThroughTheStateStore(@TempDir Path stateDir) throws Exception {
        log("[5.0] NVRM: Xid (PCI:0000:3b:00): 95, uncontained\n");
        StateStore first = new StateStore(stateDir);
        assertEquals(Severity.FAIL, worst(probe.probe(ctx(first.section("check.xid"), Map.of()))));
        first.flush();
        StateStore second = new StateStore(stateDir);
        ProbeResult r = probe.probe(ctx(second.section("check.xid"), Map.of()));
        assertEquals(0L, kernelLog(r).get("lines_read"));
        assertEquals(Severity.FAIL, finding(r, "GPU at PCI 0000:3b:00.0").orElseThrow().severity());
    }

    @Test
    void garbledLinesAreCountedAndTheirXidsStillSeen() throws Exception {
        log("[1.0] fine\n\u0001\u0002garbled\u0003 NVRM: Xid (PCI:0000:3b:00): 48, dbe\n?? 12:00 junk\n");
        ProbeResult r = probe.probe(ctx(StateSection.detached("s"), Map.of()));
        assertEquals(2L, kernelLog(r).get("unparsed_lines"));
        assertEquals(3L, kernelLog(r).get("lines_read"));
        assertEquals(Severity.FAIL, finding(r, "GPU at PCI 0000:3b:00.0").orElseThrow().severity());
    }

    @Test
    void anUnreadableLogIsUnknownButLatchedXidsStillFail() throws Exception {
        StateSection s = StateSection.detached("s");
        Path p = log("[1.0] NVRM: Xid (PCI:0000:3b:00): 48, dbe\n");
        probe.probe(ctx(s, Map.of()));
        Files.delete(p);
        ProbeResult r = probe.probe(ctx(s, Map.of()));
        Finding unknown = finding(r, "kernel log").orElseThrow();
        assertEquals(Severity.UNKNOWN, unknown.severity());
        assertTrue(unknown.message().contains("kern.log"), unknown.message());
        assertEquals(Severity.FAIL, finding(r, "GPU at PCI 0000:3b:00.0").orElseThrow().severity());
    }

    @Test
    void aMillionLineLogIsScannedOnceAndItsLatchOutlivesIt() throws Exception {
        Path p = root.resolve(LOG.substring(1));
        Files.createDirectories(p.getParent());
        try (java.io.BufferedWriter w = Files.newBufferedWriter(p)) {
            for (int i = 0; i < 999_999; i++) {
                w.write("[" + i + ".000000] usb 1-1: noise " + i + "\n");
            }
            w.write("[1000000.000000] NVRM: Xid (PCI:0000:3b:00): 79, pid=1, name=x, GPU has fallen off the bus.\n");
        }
        StateSection s = StateSection.detached("s");
        ProbeResult first = probe.probe(ctx(s, Map.of()).budget(java.time.Duration.ofSeconds(60)));
        assertEquals(1_000_000L, kernelLog(first).get("lines_read"));
        assertEquals(0L, kernelLog(first).get("skipped_lines"));
        assertEquals(Severity.FAIL, finding(first, "GPU at PCI 0000:3b:00.0").orElseThrow().severity());
        ProbeResult second = probe.probe(ctx(s, Map.of()));
        assertEquals(0L, kernelLog(second).get("lines_read"));
        assertEquals(Severity.FAIL, finding(second, "GPU at PCI 0000:3b:00.0").orElseThrow().severity());
    }

    @Test
    void pciAddressesNormalise() {
        assertEquals("0000:3b:00", XidEvent.normalizePci("PCI:0000:3B:00"));
        assertEquals("0000:3b:00", XidEvent.normalizePci("0000:3b:00.0"));
        assertEquals("0000:3b:00", XidEvent.normalizePci("00000000:3B:00.0"));
        assertEquals("0000:3b:00", XidEvent.normalizePci("3b:00"));
    }
}
