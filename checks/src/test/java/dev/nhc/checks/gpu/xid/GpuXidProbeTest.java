package dev.nhc.checks.gpu.xid;

import dev.nhc.checks.kernel.KernelLogFiles;
import dev.nhc.engine.config.ConfigException;
import dev.nhc.engine.state.StateSection;
import dev.nhc.engine.state.StateStore;
import dev.nhc.engine.testing.TestProbeContext;
import dev.nhc.model.Finding;
import dev.nhc.model.Observation;
import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;
import dev.nhc.model.SlurmState;
import dev.nhc.model.Verdict;
import dev.nhc.probe.ProbeResult;
import dev.nhc.rules.testing.Pipeline;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * gpu.xid judged as {@code nhc run} judges it (config loader, default rules, executor, severity
 * policy, state kept in files between runs), on kernel log lines written here. The host has no
 * NVML (settings.nvml_library points nowhere), so GPUs are named by PCI address unless a test
 * gives the PCI-to-index map.
 */
class GpuXidProbeTest {
    private static final String LOG = KernelLogFiles.LOG;
    private static final String XID = "- { name: xid, use: gpu.xid, with: { log: " + LOG + " } }";

    @TempDir
    Path root;
    private final GpuXidProbe probe = new GpuXidProbe();

    @BeforeEach
    void bootId() throws IOException {
        KernelLogFiles.bootId(root);
    }

    private Pipeline pipeline() {
        return new Pipeline(root, probe).settings("nvml_library: " + root.resolve("no-nvml/libnvidia-ml.so.1"));
    }

    private Verdict run() throws Exception {
        return pipeline().run(XID);
    }

    private Path log(String text) throws IOException {
        KernelLogFiles.append(root, text);
        return root.resolve(LOG.substring(1));
    }

    private static Optional<Finding> finding(Verdict v, String entity) {
        return Pipeline.findings(v, "xid").stream().filter(f -> f.entity().label().equals(entity)).findFirst();
    }

    private static Finding gpu(Verdict v, String pci) {
        return finding(v, "GPU at PCI " + pci).orElseThrow(() -> new AssertionError("no finding for " + pci + " in " + Pipeline.findings(v, "xid")));
    }

    private static Observation kernelLog(Verdict v) {
        return Pipeline.result(v, "xid").observations().stream().filter(o -> o.entity().label().equals("kernel log")).findFirst().orElseThrow();
    }

    @Test
    void doubleBitEccFailsWithResetGpuAndSaysHowItClears() throws Exception {
        log("[100.000000] NVRM: Xid (PCI:0000:3b:00): 48, pid='<unknown>', name=<unknown>, An uncorrectable double bit error (DBE)\n");
        Finding f = gpu(run(), "0000:3b:00.0");
        assertEquals(Severity.FAIL, f.severity());
        assertEquals(Remedy.RESET_GPU, f.remedy());
        assertNull(f.slurmState(), "a DBE drains; it does not ask Slurm to FAIL the node");
        assertEquals("GPU at PCI 0000:3b:00.0: XID 48 (Double Bit ECC Error) since [100.000000]: pid='<unknown>', name=<unknown>, "
                + "An uncorrectable double bit error (DBE) — stays failing until reboot or `nhc clear xid`", f.message());
        assertEquals(1L, f.observed().get("xid_latched"));
    }

    /** Issue 13 item 5: a damaged cursor made every run UNKNOWN ("Java heap space") and missed the next XID. */
    @Test
    void aDamagedCursorInStateIsResetWithAWarningAndTheNextXidStillFails() throws Exception {
        log("[1.0] usb 1-1: new device\n");
        assertEquals(Severity.PASS, Pipeline.severity(run(), "xid"));
        StateStore store = new StateStore(root.resolve("var/lib/nhc"));
        store.section("check.xid").put("log.head_len", 300_000_000L);
        store.flush();
        log("[2.0] NVRM: Xid (PCI:0000:3b:00): 79, pid=0, name=python, GPU has fallen off the bus.\n");

        Verdict v = run();

        assertEquals(Severity.FAIL, gpu(v, "0000:3b:00.0").severity());
        Finding warning = Pipeline.about(v, "xid", "kernel log");
        assertEquals(Severity.WARN, warning.severity());
        assertEquals("kernel log cursor: state value log.head_len = 300000000 is invalid (expected a whole number in 0..256); reset it",
                warning.message());
        Verdict next = run();
        assertEquals(Severity.PASS, Pipeline.about(next, "xid", "kernel log").severity(), "the cursor is whole again");
        assertEquals(Severity.FAIL, gpu(next, "0000:3b:00.0").severity(), "the XID stays latched");
    }

    @Test
    void pciAddressMapsToTheGpuIndexWhenTheInventoryKnowsIt() throws Exception {
        log("[1.0] NVRM: Xid (PCI:0000:3B:00): 48, x\n[2.0] NVRM: Xid (PCI:0000:af:00): 48, y\n");
        PciToGpu inventory = bus -> bus.equals("0000:3b:00") ? Optional.of(3) : Optional.empty();
        Verdict v = pipeline().service(PciToGpu.class, inventory).run(XID);
        Finding three = Pipeline.about(v, "xid", "GPU 3");
        assertEquals(Severity.FAIL, three.severity());
        assertEquals("0000:3b:00.0", three.entity().pciBusId());
        assertEquals(3, three.entity().gpuIndex().orElseThrow());
        // An address that matches no GPU is still reported, by address.
        assertEquals(Severity.FAIL, gpu(v, "0000:af:00.0").severity());
    }

    @Test
    void fallenOffTheBusIsXid79AskingForRebootAndSlurmFail() throws Exception {
        log("Nov 15 05:39:15 gpu-001 kernel: NVRM: GPU at PCI:0000:5e:00: GPU has fallen off the bus.\n");
        Finding f = gpu(run(), "0000:5e:00.0");
        assertEquals(Severity.FAIL, f.severity());
        assertEquals(Remedy.REBOOT, f.remedy());
        assertEquals(SlurmState.FAIL, f.slurmState());
        assertTrue(f.latched(), "a fatal XID is latched until reboot: what Slurm's repair ladder may reboot for");
        assertTrue(f.message().startsWith("GPU at PCI 0000:5e:00.0: XID 79 (GPU has fallen off the bus)"), f.message());
    }

    /** Issue 12 item 5: newer drivers say it over three lines and without an Xid number; it passed before. */
    @Test
    void theDriversThreeLineFallenOffTheBusMessageIsXid79() throws Exception {
        log("[14387.209961] NVRM: The NVIDIA GPU 0000:5d:00.0\n"
                + "               NVRM: (PCI ID: 10de:2330) installed in this system has\n"
                + "               NVRM: fallen off the bus and is not responding to commands.\n"
                + "[14387.210134] nvidia: probe of 0000:5d:00.0 failed with error -1\n");
        Finding f = gpu(run(), "0000:5d:00.0");
        assertEquals(Severity.FAIL, f.severity());
        assertEquals(SlurmState.FAIL, f.slurmState());
        assertEquals(Remedy.REBOOT, f.remedy());
        assertTrue(f.message().startsWith("GPU at PCI 0000:5d:00.0: XID 79 (GPU has fallen off the bus) since [14387.209961]"), f.message());
    }

    /** The same message as /dev/kmsg hands it over: one record, its line breaks escaped. */
    @Test
    void theFallenOffTheBusRecordFromKmsgIsXid79() throws Exception {
        Path kmsg = root.resolve("dev/kmsg");
        Files.createDirectories(kmsg.getParent());
        Files.writeString(kmsg, "3,812,14387209961,-;NVRM: The NVIDIA GPU 0000:5d:00.0\\x0aNVRM: (PCI ID: 10de:2330) installed in this "
                + "system has\\x0aNVRM: fallen off the bus and is not responding to commands.\\x0a\n"
                + "6,813,14387210134,-;nvidia: probe of 0000:5d:00.0 failed with error -1\n");
        Verdict v = pipeline().run("- { name: xid, use: gpu.xid, with: { log: kmsg } }");
        assertEquals(Severity.FAIL, gpu(v, "0000:5d:00.0").severity());
        assertEquals(SlurmState.FAIL, gpu(v, "0000:5d:00.0").slurmState());
    }

    @Test
    void theNewerOneLineFormWithoutAnXidNumberIsXid79() throws Exception {
        log("[5.0] NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus.\n");
        assertEquals(Severity.FAIL, gpu(run(), "0000:3b:00.0").severity());
    }

    @Test
    void applicationXidsNeverFailTheNode() throws Exception {
        log("[1.0] NVRM: Xid (PCI:0000:38:00): 13, pid='<unknown>', name=<unknown>, Graphics SM Warp Exception\n"
                + "[1.1] NVRM: Xid (PCI:0000:38:00): 43, pid=2924364, name=pt_main_thread, Ch 00000008\n"
                + "[1.2] NVRM: Xid (PCI:0000:38:00): 45, pid=2924364, name=pt_main_thread, Ch 00000008\n");
        Verdict v = pipeline().run("- { name: xid, use: gpu.xid, with: { log: " + LOG + ", fail: [13] } }");
        // 13 and 45 are the application's (NVIDIA: restart the application); 43 NVIDIA ignores and DCGM's memory health warns on
        assertEquals(2L, kernelLog(v).get("application_xids"));
        // Even listed under fail: a warning at most.
        assertEquals(Severity.WARN, Pipeline.severity(v, "xid"));
        assertEquals(Severity.WARN, gpu(v, "0000:38:00.0").severity());

        log("[1.3] NVRM: Xid (PCI:0000:38:00): 13, again\n");
        Verdict unlisted = run();
        assertEquals(Severity.PASS, Pipeline.severity(unlisted, "xid"), Pipeline.findings(unlisted, "xid").toString());
        assertEquals(1L, kernelLog(unlisted).get("application_xids"));
    }

    @Test
    void nvlink5LinesFailOnlyWhenTheySayFatal() throws Exception {
        log("[1.0] NVRM: Xid (PCI:0009:01:00): 149, NETIR_LINK_EVT  Fatal   XC0 i0 Link 01 (0x021425c6)\n"
                + "[1.1] NVRM: Xid (PCI:0008:01:00): 149, NETIR_LINK_EVT  Non-fatal   XC0 i0 Link 02 (0x0)\n");
        Verdict v = run();
        assertEquals(Severity.FAIL, gpu(v, "0009:01:00.0").severity());
        assertTrue(gpu(v, "0009:01:00.0").message().contains("XID 149 (fatal NVLINK: NETIR Error)"), gpu(v, "0009:01:00.0").message());
        assertEquals(Severity.WARN, gpu(v, "0008:01:00.0").severity());
        assertTrue(gpu(v, "0008:01:00.0").message().startsWith("GPU at PCI 0008:01:00.0: XID 149 (NVLINK: NETIR Error) at [1.100000]"),
                gpu(v, "0008:01:00.0").message());
    }

    /**
     * gpud PR 1160 and 1174 (GB200 kmsg lines): NVIDIA's NVLink5 decode says IGNORE for these
     * non-fatal statuses; a status it does not ignore on the same GPU still warns, whichever came last.
     */
    @Test
    void nvlink5LinesTheDecodeTableIgnoresDoNotWarnAndDoNotHideOnesItDoesNot() throws Exception {
        log("[1.0] NVRM: Xid (PCI:0000:01:00): 144, SAW_MVB Nonfatal XC0 i0 Link 0 (0x00000001 0x00000008 0x00000000 0x00000000 "
                + "0x00000000 0x00000000)\n"
                + "[1.1] NVRM: Xid (PCI:0018:01:00): 145, RLW_RXPIPE Nonfatal XC0 i0 Link 13 (0x0409a0c2 0x00000001 0x00000001 0x00000000 "
                + "0x00100000 0x00000004)\n"
                + "[1.2] NVRM: Xid (PCI:0018:01:00): 145, RLW_RXPIPE Nonfatal XC0 i0 Link 13 (0x0409a0c2 0x00000008 0x00000001 0x00000000 "
                + "0x00100000 0x00000004)\n");
        Verdict v = run();
        assertEquals(Severity.PASS, gpu(v, "0000:01:00.0").severity(), "NVIDIA: IGNORE");
        assertEquals(1L, gpu(v, "0000:01:00.0").observed().get("xid_new"), "seen, not judged");
        Finding rx = gpu(v, "0018:01:00.0");
        assertEquals(Severity.WARN, rx.severity(), "status 0x1 is Non-fatal* with a second action: a reset");
        assertTrue(rx.message().contains("XID 145 (NVLINK: RLW Error; RLW_RXPIPE status 0x00000001: NVIDIA IGNORE, CONTACT_SUPPORT) ×2"),
                rx.message());
    }

    @Test
    void aSitesWarnListStillWarnsOnAnNvlink5StatusTheTableIgnores() throws Exception {
        log("[1.0] NVRM: Xid (PCI:0000:01:00): 144, SAW_MVB Nonfatal XC0 i0 Link 0 (0x00000001 0x00000008 0x00000000 0x00000000 "
                + "0x00000000 0x00000000)\n");
        Verdict v = pipeline().run("- { name: xid, use: gpu.xid, with: { log: " + LOG + ", warn: [144] } }");
        assertEquals(Severity.WARN, gpu(v, "0000:01:00.0").severity());
    }

    /** gpud PR 1174: NETIR_INT (link -1): the line says Fatal, and NVIDIA's row resets the GPU. */
    @Test
    void aFatalNvlink5LineNamesNvidiasDecodeInItsFinding() throws Exception {
        log("[1.0] NVRM: Xid (PCI:0019:01:00): 149, NETIR Fatal XC0 i0 Link -1 (0x000fe406 0x00000000 0x00000000 0x00000000 0x00000000 "
                + "0x00000000)\n");
        Finding f = gpu(run(), "0019:01:00.0");
        assertEquals(Severity.FAIL, f.severity());
        assertEquals(Remedy.RESET_GPU, f.remedy());
        assertTrue(f.message().contains("XID 149 (fatal NVLINK: NETIR Error; NETIR/NETIR_INT status 0x00000000: NVIDIA RESET_GPU, "
                + "SYMPATHETIC_REPORT_SOLO)"), f.message());
    }

    @Test
    void xid154FollowsTheRecoveryAction() throws Exception {
        log("[1.0] NVRM: Xid (PCI:0009:01:00): 154, GPU recovery action changed from 0x0 (None) to 0x4 (Drain and Reset)\n"
                + "[1.1] NVRM: Xid (PCI:0019:01:00): 154, GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)\n"
                + "[1.2] NVRM: Xid (PCI:0029:01:00): 154, GPU recovery action changed from 0x0 (None) to 0x3 (Drain P2P)\n");
        Verdict v = run();
        Finding reset = gpu(v, "0009:01:00.0");
        assertEquals(Severity.FAIL, reset.severity());
        assertEquals(Remedy.RESET_GPU, reset.remedy());
        Finding reboot = gpu(v, "0019:01:00.0");
        assertEquals(Severity.FAIL, reboot.severity());
        assertEquals(Remedy.REBOOT, reboot.remedy());
        assertEquals(Severity.WARN, gpu(v, "0029:01:00.0").severity());

        // Latched until the driver says the action is back to None.
        assertEquals(Severity.FAIL, gpu(run(), "0009:01:00.0").severity());
        log("[2.0] NVRM: Xid (PCI:0009:01:00): 154, GPU recovery action changed from 0x4 (Drain and Reset) to 0x0 (None)\n");
        Verdict after = run();
        assertEquals(Severity.PASS, gpu(after, "0009:01:00.0").severity(), Pipeline.findings(after, "xid").toString());
        assertEquals(0L, gpu(after, "0009:01:00.0").observed().get("xid_latched"));
        assertEquals(Severity.FAIL, gpu(after, "0019:01:00.0").severity());
    }

    /**
     * Issue 18: the "Memory Subsystem Error" class. No public capture of the driver's XID 175 exists
     * yet (driver 595 introduced it); the line is the driver's XID format with its number, and the
     * judgement is the driver's own (kernel_gsp.c marks the GPU for reset), recorded in the catalogue.
     */
    @Test
    void aMemorySubsystemErrorIsFatalWithAGpuReset() throws Exception {
        log("[900.0] NVRM: Xid (PCI:0000:3b:00): 175, pid='<unknown>', name=<unknown>, Memory subsystem error\n");
        Finding f = gpu(run(), "0000:3b:00.0");
        assertEquals(Severity.FAIL, f.severity());
        assertEquals(Remedy.RESET_GPU, f.remedy());
        assertTrue(f.message().contains("XID 175 (GSP timeout due to a memory subsystem error"), f.message());
    }

    /** Issue 18: the PMU-halt class came out as a warning; NVIDIA's catalogue says RESET_GPU. */
    @Test
    void aPmuHaltIsFatalWithAGpuReset() throws Exception {
        log("[10.0] NVRM: Xid (PCI:0000:03:00): 62, 00000a9f 00000a85 00000a72 00003786 00001d3e 000027d6 01013289 00000000\n");
        Finding f = gpu(run(), "0000:03:00.0");
        assertEquals(Severity.FAIL, f.severity());
        assertEquals(Remedy.RESET_GPU, f.remedy());
    }

    @Test
    void theXidListsReclassify() throws Exception {
        log("[1.0] NVRM: Xid (PCI:0000:01:00): 92, High single-bit ECC error rate\n[1.1] NVRM: Xid (PCI:0000:02:00): 48, dbe\n"
                + "[1.2] NVRM: Xid (PCI:0000:03:00): 79, off\n[1.3] NVRM: Xid (PCI:0000:04:00): 999, brand new\n"
                + "[1.4] NVRM: Xid (PCI:0000:05:00): 31, pid=7, name=a.out, MMU Fault\n");
        Verdict v = pipeline().run("- { name: xid, use: gpu.xid, with: { log: " + LOG + ", fail: [92, 31], warn: [48], ignore: [79] } }");
        assertEquals(Severity.FAIL, gpu(v, "0000:01:00.0").severity(), "NVIDIA says ignore 92; the site says fail");
        assertEquals(Severity.WARN, gpu(v, "0000:05:00.0").severity(), "31 is the application's: any user can raise it, so fail: only warns");
        assertEquals(Severity.WARN, gpu(v, "0000:02:00.0").severity());
        assertEquals(Severity.PASS, gpu(v, "0000:03:00.0").severity());
        // An XID in no list is a warning, not dropped.
        assertEquals(Severity.WARN, gpu(v, "0000:04:00.0").severity());
        assertTrue(gpu(v, "0000:04:00.0").message().contains("XID 999 (not in NVIDIA's XID catalogue)"), gpu(v, "0000:04:00.0").message());
    }

    @Test
    void nvswitchSxidsFailWhenFatal() throws Exception {
        log("[1.0] nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 24007, Fatal, Link 44 sourcetrack timeout error (First)\n"
                + "[1.1] nvidia-nvswitch1: SXid (PCI:0000:06:00.0): 12028, Non-fatal, Link 32 egress non-posted PRIV error\n");
        Verdict v = run();
        Finding fatal = Pipeline.about(v, "xid", "NVSwitch at PCI 0000:05:00.0");
        assertEquals(Severity.FAIL, fatal.severity());
        assertEquals(dev.nhc.model.Entity.Kind.NVSWITCH, fatal.entity().kind());
        assertEquals(Severity.WARN, Pipeline.about(v, "xid", "NVSwitch at PCI 0000:06:00.0").severity());
    }

    @Test
    void aLatchedXidSurvivesTenRunsAndClearsOnANewBootId() throws Exception {
        log("[5.0] NVRM: Xid (PCI:0000:3b:00): 119, pid=1, name=x, Timeout after 6s of waiting for RPC response from GPU4 GSP!\n");
        assertEquals(Severity.FAIL, Pipeline.severity(run(), "xid"));
        for (int i = 0; i < 10; i++) {
            Verdict v = run();
            assertEquals(0L, kernelLog(v).get("lines_read"), "run " + i + " read old lines again");
            Finding f = gpu(v, "0000:3b:00.0");
            assertEquals(Severity.FAIL, f.severity(), "run " + i);
            assertEquals(0L, f.observed().get("xid_new"));
        }
        Files.writeString(root.resolve("proc/sys/kernel/random/boot_id"), "boot-2\n");
        Verdict rebooted = run();
        assertEquals(Severity.PASS, Pipeline.severity(rebooted, "xid"), Pipeline.findings(rebooted, "xid").toString());
        assertFalse(Files.readString(stateFile()).contains("xid.latched"), "the latch is gone from the state file");
    }

    private Path stateFile() {
        return root.resolve("var/lib/nhc/check.xid.json");
    }

    @Test
    void clearForgetsTheLatchButKeepsTheCursorSoOldLinesDoNotLatchAgain() throws Exception {
        log("[5.0] NVRM: Xid (PCI:0000:3b:00): 79, pid=1, x\n");
        assertEquals(Severity.FAIL, Pipeline.severity(run(), "xid"));
        StateStore store = new StateStore(root.resolve("var/lib/nhc"));
        StateSection s = store.section("check.xid");
        probe.clear(s);
        assertNotNull(s.get("log.offset"));
        store.flush();
        Verdict cleared = run();
        assertEquals(Severity.PASS, Pipeline.severity(cleared, "xid"), Pipeline.findings(cleared, "xid").toString());
        // A new fatal XID after the clear latches again.
        log("[6.0] NVRM: Xid (PCI:0000:3b:00): 79, pid=1, again\n");
        assertEquals(Severity.FAIL, Pipeline.severity(run(), "xid"));
    }

    @Test
    void aLatchOutlivesItsLineInTheKmsgRingBuffer() throws Exception {
        Path kmsg = root.resolve("dev/kmsg");
        Files.createDirectories(kmsg.getParent());
        String check = "- { name: xid, use: gpu.xid, with: { log: kmsg } }";
        Files.writeString(kmsg, "3,10,5000000,-;NVRM: Xid (PCI:0000:3b:00): 48, dbe\n");
        assertEquals(Severity.FAIL, Pipeline.severity(pipeline().run(check), "xid"));
        Files.writeString(kmsg, "6,11,6000000,-;usb 1-1: new device\n"); // the ring buffer moved on
        assertEquals(Severity.FAIL, Pipeline.severity(pipeline().run(check), "xid"));
    }

    @Test
    void aLatchOutlivesAnEmptiedStateFileAndWithNoGenerationLeftTheCheckIsUnknownNeverAPass() throws Exception {
        Path kern = log("[5.0] NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus\n");
        Path state = root.resolve("var/lib/nhc/check.xid.json");
        assertEquals(Severity.FAIL, Pipeline.severity(run(), "xid"));
        run(); // a second write keeps the first as the previous generation
        Files.writeString(kern, "[9.0] usb 1-1: new device\n"); // rotated: the XID line is gone
        Files.write(state, new byte[0]);
        assertEquals(Severity.FAIL, gpu(run(), "0000:3b:00.0").severity(), "latched in the previous generation");

        Files.write(state, new byte[0]);
        Files.write(state.resolveSibling("check.xid.json.prev"), new byte[0]);
        for (int i = 0; i < 2; i++) {
            Verdict v = run();
            assertEquals(Severity.UNKNOWN, Pipeline.severity(v, "xid"), "run " + i + ": " + Pipeline.findings(v, "xid"));
            Finding f = finding(v, "kernel log").orElseThrow();
            assertTrue(f.message().contains("state unreadable: could not read check.xid.json (is empty) or check.xid.json.prev (is empty)"),
                    f.message());
        }
    }

    /** A line nobody can be told to have written decides nothing: counted, warned of, its "XID" not taken. */
    @Test
    void garbledLinesAreCountedAndWarnedOfNotJudged() throws Exception {
        log("[1.0] fine\n\u0001\u0002garbled\u0003 NVRM: Xid (PCI:0000:3b:00): 48, dbe\n?? 12:00 junk\n");
        Verdict v = run();
        assertEquals(2L, kernelLog(v).get("unparsed_lines"));
        assertEquals(3L, kernelLog(v).get("lines_read"));
        assertEquals(Severity.WARN, Pipeline.severity(v, "xid"));
        assertTrue(Pipeline.findings(v, "xid").stream().noneMatch(f -> f.entity().label().contains("3b:00")), Pipeline.findings(v, "xid").toString());
    }

    @Test
    void anUnreadableLogIsUnknownButLatchedXidsStillFail() throws Exception {
        Path p = log("[1.0] NVRM: Xid (PCI:0000:3b:00): 48, dbe\n");
        run();
        Files.delete(p);
        Verdict v = run();
        Finding unknown = Pipeline.about(v, "xid", "kernel log");
        assertEquals(Severity.UNKNOWN, unknown.severity());
        assertTrue(unknown.message().contains("kern.log"), unknown.message());
        assertEquals(Severity.FAIL, gpu(v, "0000:3b:00.0").severity());
    }

    /** A hand-edited or damaged latch is not silently dropped: the check cannot decide until reboot or clear. */
    @Test
    void aLatchThatCannotBeReadBackIsUnknownUntilRebootOrClear() throws Exception {
        log("[1.0] NVRM: Xid (PCI:0000:3b:00): 48, dbe\n");
        assertEquals(Severity.FAIL, Pipeline.severity(run(), "xid"));
        String state = Files.readString(stateFile());
        assertTrue(state.contains("\"code\" : 48"), state);
        Files.writeString(stateFile(), state.replace("\"code\" : 48", "\"code\" : \"forty-eight\""));

        for (int i = 0; i < 2; i++) {
            Verdict v = run();
            Finding f = Pipeline.about(v, "xid", "kernel log");
            assertEquals(Severity.UNKNOWN, f.severity(), "run " + i);
            assertEquals("latched XIDs could not be read back from the check's state (1 saved entry is damaged); fatal XIDs of this boot "
                    + "may be missing until reboot or `nhc clear xid`", f.message());
        }
        Files.writeString(root.resolve("proc/sys/kernel/random/boot_id"), "boot-2\n");
        assertEquals(Severity.PASS, Pipeline.severity(run(), "xid"));
    }

    @Test
    void moreNewLinesThanMaxLinesWarnOnTheLogEntity() throws Exception {
        log("[1.0] a\n[1.1] b\n[1.2] c\n");
        Verdict v = pipeline().run("- { name: xid, use: gpu.xid, with: { log: " + LOG + ", max_lines: 2 } }");
        Finding f = Pipeline.about(v, "xid", "kernel log");
        assertEquals(Severity.WARN, f.severity());
        assertEquals("1 new kernel log line in " + root.resolve(LOG.substring(1)) + " was not examined for XIDs "
                + "(more than max_lines = 2 this run)", f.message());
    }

    @Test
    void aConfigsFailAndWarnReplaceTheDefaultsAndNoneDropsThem() throws Exception {
        log("[1.0] NVRM: Xid (PCI:0000:3b:00): 48, dbe\n[1.1] NVRM: Xid (PCI:0000:5e:00): 31, page fault\n");
        // Only GPUs with two or more latched XIDs fail; warnings are dropped.
        Verdict v = pipeline().run("- { name: xid, use: gpu.xid, with: { log: " + LOG + " }, fail: { xid_latched: \">= 2\" }, warn: none }");
        assertEquals(Severity.PASS, gpu(v, "0000:3b:00.0").severity(), Pipeline.findings(v, "xid").toString());
        assertEquals(Severity.PASS, gpu(v, "0000:5e:00.0").severity());

        log("[2.0] NVRM: Xid (PCI:0000:3b:00): 95, uncontained\n");
        Verdict two = pipeline().run("- { name: xid, use: gpu.xid, with: { log: " + LOG + " }, fail: { xid_latched: \">= 2\" }, warn: none }");
        Finding f = gpu(two, "0000:3b:00.0");
        assertEquals(Severity.FAIL, f.severity());
        assertEquals("GPU at PCI 0000:3b:00.0: xid_latched 2 >= 2", f.message());
    }

    @Test
    void badXidNumbersAreConfigErrorsWithTheirPlace() {
        ConfigException zero = assertThrows(ConfigException.class,
                () -> pipeline().plan("- { name: xid, use: gpu.xid, with: { fail: [79, 0] } }"));
        assertTrue(zero.problems().get(0).toString().matches("nhc\\.yaml:\\d+:\\d+: 'fail' in .*XID numbers are whole numbers from 1 to 65535, not 0"),
                zero.problems().toString());
        ConfigException word = assertThrows(ConfigException.class,
                () -> pipeline().plan("- { name: xid, use: gpu.xid, with: { ignore: [thirteen] } }"));
        assertTrue(word.problems().get(0).toString().matches("nhc\\.yaml:\\d+:\\d+: each item of 'ignore' .*must be a whole number.*"),
                word.problems().toString());
    }

    @Test
    void fatalXidsFromNvmlEventsFailOnTheNextRunAndStayLatched() throws Exception {
        log("");
        NvmlXidEvents events = new NvmlXidEvents();
        Pipeline p = pipeline().service(NvmlXidEvents.class, events);
        assertEquals(Severity.PASS, Pipeline.severity(p.run(XID), "xid"));

        events.add(new NvmlXidEvents.Event(2, "00000000:3B:00.0", 79, Instant.parse("2026-11-22T04:10:00Z")));
        Verdict v = p.run(XID);
        Finding f = Pipeline.about(v, "xid", "GPU 2");
        assertEquals(Severity.FAIL, f.severity());
        assertEquals("0000:3b:00.0", f.entity().pciBusId());
        assertEquals(SlurmState.FAIL, f.slurmState());
        assertEquals(Remedy.REBOOT, f.remedy());
        assertEquals("GPU 2: XID 79 (GPU has fallen off the bus) since 2026-11-22T04:10:00Z: reported by NVML — stays failing until reboot "
                + "or `nhc clear xid`", f.message());
        assertEquals(1L, kernelLog(v).get("nvml_events"));

        // The queue is drained; the latch keeps the GPU failing.
        Verdict later = p.run(XID);
        assertEquals(Severity.FAIL, Pipeline.about(later, "xid", "GPU 2").severity());
        assertEquals(0L, kernelLog(later).get("nvml_events"));
    }

    @Test
    void anXidSeenByNvmlAndInTheLogIsCountedOnce() throws Exception {
        NvmlXidEvents events = new NvmlXidEvents();
        events.add(new NvmlXidEvents.Event(1, "0000:3b:00.0", 48, Instant.parse("2026-11-22T04:10:00Z")));
        log("[1.0] NVRM: Xid (PCI:0000:3b:00): 48, pid=1, name=x, An uncorrectable double bit error (DBE)\n");
        Verdict v = pipeline().service(NvmlXidEvents.class, events).run(XID);
        Finding f = Pipeline.about(v, "xid", "GPU 1");
        assertEquals(Severity.FAIL, f.severity());
        assertEquals(1L, f.observed().get("xid_new"));
        assertTrue(f.message().contains("XID 48 (Double Bit ECC Error) since [1.000000]"), f.message());
        assertFalse(f.message().contains("×"), f.message());
    }

    /** NVML saw the NVLink5 XID more often than the log: the line's "Fatal" still makes it fatal. */
    @Test
    void anNvlink5XidFatalByItsLineStaysFatalWhenNvmlSawItMoreOften() throws Exception {
        NvmlXidEvents events = new NvmlXidEvents();
        events.add(new NvmlXidEvents.Event(1, "0009:01:00.0", 149, Instant.parse("2026-11-22T04:10:00Z")));
        events.add(new NvmlXidEvents.Event(1, "0009:01:00.0", 149, Instant.parse("2026-11-22T04:10:01Z")));
        log("[1.0] NVRM: Xid (PCI:0009:01:00): 149, NETIR_LINK_EVT  Fatal   XC0 i0 Link 01 (0x021425c6)\n");
        Verdict v = pipeline().service(NvmlXidEvents.class, events).run(XID);
        Finding f = Pipeline.about(v, "xid", "GPU 1");
        assertEquals(Severity.FAIL, f.severity(), f.message());
        assertTrue(f.message().contains("XID 149 (fatal NVLINK: NETIR Error)"), f.message());
    }

    /** NVML tells the XID in one run, the log's line is read in the next: one XID, one latch, no "×2". */
    @Test
    void anXidNvmlToldLastRunIsNotCountedAgainWhenItsLineIsRead() throws Exception {
        log("[0.5] boot\n");
        NvmlXidEvents events = new NvmlXidEvents();
        Pipeline p = pipeline().service(NvmlXidEvents.class, events);
        events.add(new NvmlXidEvents.Event(1, "0000:3b:00.0", 48, Instant.parse("2026-11-22T04:10:00Z")));
        Finding first = Pipeline.about(p.run(XID), "xid", "GPU 1");
        assertEquals(Severity.FAIL, first.severity());

        log("[1.0] NVRM: Xid (PCI:0000:3b:00): 48, pid=1, name=x, An uncorrectable double bit error (DBE)\n");
        Verdict v = p.run(XID);
        Finding f = Pipeline.about(v, "xid", "GPU 1");
        assertEquals(Severity.FAIL, f.severity());
        assertFalse(f.message().contains("×"), f.message());
        assertEquals(0L, f.observed().get("xid_new"), f.message());
    }

    /** NVML gave only the GPU's index: its XID is keyed by the GPU's address, like the log's line, so it is one latch. */
    @Test
    void anNvmlEventWithoutAnAddressIsTheSameLatchAsTheLogsLine() throws Exception {
        log("[0.5] boot\n");
        dev.nhc.checks.gpu.GpuSource gpus = new dev.nhc.checks.gpu.capture.CaptureGpuSource(dev.nhc.checks.gpu.capture.NvidiaSmiCapture.parse(
                "capture.txt", dev.nhc.checks.gpu.capture.SmiQText.query(dev.nhc.checks.gpu.capture.SmiQText.gpu("00000000:68:00.0",
                        "GPU-5269b708-678a-b1a8-60f0-c90406537486"))));
        NvmlXidEvents events = new NvmlXidEvents();
        Pipeline p = pipeline().service(NvmlXidEvents.class, events).service(dev.nhc.checks.gpu.GpuSource.class, gpus);
        events.add(new NvmlXidEvents.Event(0, null, 79, Instant.parse("2026-11-22T04:10:00Z")));
        assertEquals(Severity.FAIL, Pipeline.about(p.run(XID), "xid", "GPU 0").severity());
        log("[1.0] NVRM: Xid (PCI:0000:68:00): 79, pid=1, GPU has fallen off the bus.\n");
        Verdict v = p.run(XID);
        List<Finding> failing = Pipeline.findings(v, "xid").stream().filter(f -> f.severity() == Severity.FAIL).toList();
        assertEquals(1, failing.size(), failing.toString());
        assertFalse(failing.get(0).message().contains("×"), failing.get(0).message());
        assertEquals(1L, failing.get(0).observed().get("xid_latched"), failing.get(0).toString());
    }

    /** A non-fatal XID warns once, not again when the other source tells it a run later. */
    @Test
    void aWarningNvmlToldLastRunDoesNotWarnAgainFromTheLog() throws Exception {
        log("[0.5] boot\n");
        NvmlXidEvents events = new NvmlXidEvents();
        Pipeline p = pipeline().service(NvmlXidEvents.class, events);
        events.add(new NvmlXidEvents.Event(0, "0000:19:00.0", 31, Instant.parse("2026-11-22T04:10:00Z")));
        assertEquals(Severity.WARN, Pipeline.about(p.run(XID), "xid", "GPU 0").severity());
        log("[1.0] NVRM: Xid (PCI:0000:19:00): 31, pid=1, name=x, MMU Fault\n");
        Verdict v = p.run(XID);
        assertEquals(Severity.PASS, Pipeline.severity(v, "xid"), Pipeline.findings(v, "xid").toString());
    }

    @Test
    void nonFatalNvmlEventsWarnForTheRunThatSawThem() throws Exception {
        log("");
        NvmlXidEvents events = new NvmlXidEvents();
        Pipeline p = pipeline().service(NvmlXidEvents.class, events);
        events.add(new NvmlXidEvents.Event(0, "0000:19:00.0", 31, Instant.parse("2026-11-22T04:10:00Z")));
        assertEquals(Severity.WARN, Pipeline.about(p.run(XID), "xid", "GPU 0").severity());
        assertEquals(Severity.PASS, Pipeline.severity(p.run(XID), "xid"));
    }

    // ---- observations, through the probe alone ----

    private TestProbeContext ctx(StateSection state, String with) {
        return new TestProbeContext(root).state(state).checkName("xid").setting("nvml_library", root.resolve("none.so").toString())
                .with(probe.spec(), with);
    }

    private static Observation observed(ProbeResult r, String entity) {
        return r.observations().stream().filter(o -> o.entity().label().equals(entity)).findFirst().orElseThrow();
    }

    @Test
    void perGpuItObservesLatchesWarningsAndTheCataloguesRemedy() throws Exception {
        log("[1.0] NVRM: Xid (PCI:0000:3b:00): 48, dbe\n[1.1] NVRM: Xid (PCI:0000:3b:00): 31, fault\n"
                + "[1.2] NVRM: Xid (PCI:0000:3b:00): 31, fault again\n");
        ProbeResult r = probe.probe(ctx(StateSection.detached("s"), "{ log: " + LOG + " }"));
        Observation o = observed(r, "GPU at PCI 0000:3b:00.0");
        assertEquals(1L, o.get("xid_latched"));
        assertEquals(2L, o.get("xid_warning"));
        assertEquals(3L, o.get("xid_new"));
        assertEquals(31L, o.get("last_xid"));
        assertEquals(false, o.get("needs_service"));
        assertEquals("reset-gpu", o.get("remedy"));
        assertEquals("XID 48 (Double Bit ECC Error) since [1.000000]: dbe; XID 31 (GPU memory page fault) ×2 at [1.100000]: fault again",
                o.get("xids"));
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
        ProbeResult first = probe.probe(ctx(s, "{ log: " + LOG + " }").budget(java.time.Duration.ofSeconds(60)));
        assertEquals(1_000_000L, observed(first, "kernel log").get("lines_read"));
        assertEquals(0L, observed(first, "kernel log").get("skipped_lines"));
        assertEquals(true, observed(first, "GPU at PCI 0000:3b:00.0").get("needs_service"));
        ProbeResult second = probe.probe(ctx(s, "{ log: " + LOG + " }"));
        assertEquals(0L, observed(second, "kernel log").get("lines_read"));
        assertEquals(1L, observed(second, "GPU at PCI 0000:3b:00.0").get("xid_latched"));
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
        ProbeResult r = probe.probe(ctx(StateSection.detached("s"), "{ log: " + LOG + " }").budget(java.time.Duration.ofSeconds(60)));
        assertEquals(true, observed(r, "GPU at PCI 0000:3b:00.0").get("needs_service"));
        assertEquals(0L, observed(r, "kernel log").get("truncated_lines"));
        assertEquals(0L, observed(r, "kernel log").get("cursor_resets"));
    }

    @Test
    void latchesOfNhc01AreReadBack() throws Exception {
        StateSection s = StateSection.detached("s");
        s.put("xid.boot_id", "boot-1");
        s.put(XidLatches.LATCHED, List.of(java.util.Map.of("kind", "xid", "pci", "0000:3b:00", "code", 95L, "count", 2L,
                "first", "[1.000000]", "last", "[2.000000]", "text", "uncontained")));
        log("");
        ProbeResult r = probe.probe(ctx(s, "{ log: " + LOG + " }"));
        Observation o = observed(r, "GPU at PCI 0000:3b:00.0");
        assertEquals(1L, o.get("xid_latched"));
        assertEquals("XID 95 (Uncontained memory error) ×2 since [1.000000]: uncontained", o.get("xids"));
        assertEquals(false, observed(r, "kernel log").get("state_lost"));
    }

    @Test
    void pciAddressesNormalise() {
        assertEquals("0000:3b:00", XidEvent.normalizePci("PCI:0000:3B:00"));
        assertEquals("0000:3b:00", XidEvent.normalizePci("0000:3b:00.0"));
        assertEquals("0000:3b:00", XidEvent.normalizePci("00000000:3B:00.0"));
        assertEquals("0000:3b:00", XidEvent.normalizePci("3b:00"));
    }
}
