package dev.nhc.checks.gpu.fabric;

import dev.nhc.checks.Scripts;
import dev.nhc.checks.gpu.FakeNvml;
import dev.nhc.checks.gpu.GpuSource;
import dev.nhc.checks.gpu.capture.CaptureGpuSource;
import dev.nhc.checks.gpu.capture.NvidiaSmiCapture;
import dev.nhc.checks.gpu.nvml.NvmlSessions;
import dev.nhc.engine.config.ConfigException;
import dev.nhc.engine.state.StateStore;
import dev.nhc.engine.testing.TestProbeContext;
import dev.nhc.model.Entity;
import dev.nhc.model.Finding;
import dev.nhc.model.Observation;
import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;
import dev.nhc.model.Verdict;
import dev.nhc.probe.ProbeResult;
import dev.nhc.rules.testing.Pipeline;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import static dev.nhc.checks.gpu.capture.CapturedFabricTest.capture;
import static dev.nhc.checks.gpu.capture.CapturedFabricTest.fabric;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * gpu.fabric judged as nhc run judges it: the GPUs through the real JNA binding against the fake
 * NVML, the fabric manager unit through a fake systemctl, and the fabric manager log as a file
 * under the test's system root, with state kept between runs.
 */
class GpuFabricProbeTest {
    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("MMM dd yyyy HH:mm:ss", Locale.ROOT)
            .withZone(ZoneId.systemDefault());
    private static final String LOG = "/var/log/fabricmanager.log";
    private static final String UNIT = "nvidia-fabricmanager.service";
    /** The node booted a day ago. */
    private static final Instant BOOT = Instant.now().minus(Duration.ofDays(1)).truncatedTo(java.time.temporal.ChronoUnit.SECONDS);

    @TempDir
    Path root;

    private Path systemctl;

    @AfterAll
    static void closeSessions() {
        NvmlSessions.closeAll();
    }

    @BeforeEach
    void node() throws IOException {
        write("/proc/sys/kernel/random/boot_id", "boot-1\n");
        write("/proc/stat", "cpu  1 2 3 4\nbtime " + BOOT.getEpochSecond() + "\n");
        Files.createDirectories(root.resolve("bin"));
        // Records its arguments; answers from bin/unit-NAME, else "not installed".
        systemctl = Scripts.write(root.resolve("bin"), "systemctl", "echo \"$@\" >> " + root.resolve("bin/calls") + "\n"
                + "f=" + root.resolve("bin") + "/unit-\"$5\"\n"
                + "if [ -f \"$f\" ]; then cat \"$f\"; else printf 'ActiveState=inactive\\nSubState=dead\\nLoadState=not-found\\n'; fi");
        unit("active", "running");
    }

    private void write(String absolute, String text) throws IOException {
        Path p = root.resolve(absolute.substring(1));
        Files.createDirectories(p.getParent());
        Files.writeString(p, text);
    }

    private void unit(String active, String sub) throws IOException {
        Files.writeString(root.resolve("bin/unit-" + UNIT), "ActiveState=" + active + "\nSubState=" + sub + "\nLoadState=loaded\n");
    }

    private boolean systemctlCalled() {
        return Files.exists(root.resolve("bin/calls"));
    }

    /** Appends lines to the fabric manager log. */
    private void log(String... lines) throws IOException {
        Path p = root.resolve(LOG.substring(1));
        Files.createDirectories(p.getParent());
        Files.writeString(p, String.join("\n", lines) + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    private static String stamped(Instant when, String level, String text) {
        return "[" + STAMP.format(when) + "] [" + level + "] [tid 4711] " + text;
    }

    private static String fatal(Instant when, int sxid, String bus, int physical, int port) {
        return stamped(when, "ERROR", "detected NVSwitch fatal error " + sxid + " on fid 0 on NVSwitch pci bus id " + bus
                + " physical id " + physical + " port " + port);
    }

    private static String nonFatal(Instant when, int sxid, String bus, int physical, int port) {
        return stamped(when, "ERROR", "detected NVSwitch non-fatal error " + sxid + " on fid 0 on NVSwitch pci bus id " + bus
                + " physical id " + physical + " port " + port);
    }

    /** Eight H100s, each with this fabric object (null: no fabric information, a PCIe system). */
    private static void gpus(Map<String, Object> fabric) throws IOException {
        List<Map<String, Object>> gpus = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            Map<String, Object> g = FakeNvml.healthyH100(i);
            if (fabric != null) {
                g.put("fabric", new LinkedHashMap<>(fabric));
            }
            gpus.add(g);
        }
        FakeNvml.use(FakeNvml.scenario(gpus));
    }

    private static Map<String, Object> healthyFabric() {
        return dev.nhc.checks.gpu.GpuFabricTest.fabric(3, 0, dev.nhc.checks.gpu.GpuFabricTest.HEALTHY_MASK, 1);
    }

    private Pipeline pipeline() {
        return new Pipeline(root, new GpuFabricProbe()).settings("nvml_library: " + FakeNvml.library());
    }

    private String check(String with, String more) {
        return "- name: fabric\n  use: gpu.fabric\n  timeout: 8s\n  with: { systemctl: " + systemctl + (with.isEmpty() ? "" : ", " + with)
                + " }\n" + more;
    }

    private Verdict run(String with) throws Exception {
        return pipeline().run(check(with, ""));
    }

    private static List<Finding> bad(Verdict v) {
        return Pipeline.findings(v, "fabric").stream().filter(f -> f.severity() != Severity.PASS).toList();
    }

    // ---------------------------------------------------------------- healthy

    @Test
    void aHealthyFabricNodePassesAndReadsAllThreeSources() throws Exception {
        gpus(healthyFabric());
        log(stamped(BOOT.plusSeconds(30), "INFO", "Successfully configured all the available NVSwitches to route GPU NVLink traffic."));
        Verdict v = run("");
        assertEquals(List.of(), bad(v));
        assertEquals(Severity.PASS, Pipeline.severity(v, "fabric"));
        assertEquals(Severity.PASS, Pipeline.about(v, "fabric", UNIT).severity());
        assertTrue(systemctlCalled(), "a node on a fabric needs its fabric manager: the unit is read");
    }

    @Test
    void observesEachSourceAsItsOwnEntity() throws Exception {
        gpus(healthyFabric());
        log(nonFatal(BOOT.plusSeconds(60), 19084, "00000000:C5:00.0", 7, 40));
        TestProbeContext ctx = new TestProbeContext(root).setting("nvml_library", FakeNvml.library()).budget(Duration.ofSeconds(8))
                .with(new GpuFabricProbe().spec(), "{ systemctl: " + systemctl + " }");
        ProbeResult r = new GpuFabricProbe().probe(ctx);
        Observation gpu = r.observations().stream().filter(o -> o.entity().label().equals("GPU 3")).findFirst().orElseThrow();
        assertEquals("completed", gpu.get("fabric_state"));
        assertEquals("SUCCESS", gpu.get("fabric_status"));
        assertEquals(false, gpu.get("fabric_failed"));
        assertEquals(32766L, gpu.get("fabric_clique_id"));
        assertEquals("healthy", gpu.get("fabric_health"));
        assertEquals(false, gpu.get("fabric_route_unhealthy"));
        assertEquals("none", gpu.get("fabric_incorrect_configuration"));
        Observation unit = find(r, Entity.Kind.SERVICE);
        assertEquals(UNIT, unit.entity().id());
        assertEquals(true, unit.get("active"));
        assertEquals(true, unit.get("required"));
        Observation sw = find(r, Entity.Kind.NVSWITCH);
        assertEquals("0000:c5:00.0", sw.entity().pciBusId());
        assertEquals("NVSwitch 0000:c5:00.0 (physical id 7)", sw.entity().label());
        assertEquals(1L, sw.get("nonfatal_errors"));
        assertEquals(0L, sw.get("fatal_errors"));
        Observation log = find(r, Entity.Kind.LOG);
        assertEquals(1L, log.get("lines_read"));
        assertEquals(false, log.get("behind"));
    }

    private static Observation find(ProbeResult r, Entity.Kind kind) {
        return r.observations().stream().filter(o -> o.entity().kind() == kind).findFirst().orElseThrow();
    }

    // ---------------------------------------------------------------- the GPUs' registration

    @Test
    void eachGpusRegistrationIsJudgedLikeDcgmsFabricProbeState() throws Exception {
        long healthy = dev.nhc.checks.gpu.GpuFabricTest.HEALTHY_MASK;
        List<Map<String, Object>> gpus = new ArrayList<>();
        List<Map<String, Object>> fabrics = List.of(
                dev.nhc.checks.gpu.GpuFabricTest.fabric(1, 0, 0, 0),                                  // not started
                dev.nhc.checks.gpu.GpuFabricTest.fabric(2, 0, 0, 0),                                  // in progress
                dev.nhc.checks.gpu.GpuFabricTest.fabric(3, 999, healthy, 1),                          // failed
                dev.nhc.checks.gpu.GpuFabricTest.fabric(3, 0, (healthy & ~(0x3L << 4)) | 1L << 4, 2), // route unhealthy
                dev.nhc.checks.gpu.GpuFabricTest.fabric(3, 0, (healthy & ~0x3L) | 1L, 3),            // bandwidth degraded
                dev.nhc.checks.gpu.GpuFabricTest.fabric(3, 0, healthy, 3),                            // limited capacity
                dev.nhc.checks.gpu.GpuFabricTest.fabric(3, 0, (healthy & ~(0xfL << 8)) | 5L << 8, 2), // insufficient NVLinks
                dev.nhc.checks.gpu.GpuFabricTest.fabric(3, 0, (healthy & ~(0x3L << 2)) | 1L << 2, 1)); // route recovery
        for (int i = 0; i < 8; i++) {
            Map<String, Object> g = FakeNvml.healthyH100(i);
            g.put("fabric", fabrics.get(i));
            gpus.add(g);
        }
        FakeNvml.use(FakeNvml.scenario(gpus));
        Verdict v = run("log: none");

        Finding notStarted = Pipeline.about(v, "fabric", "GPU 0");
        assertEquals(Severity.FAIL, notStarted.severity());
        assertEquals("GPU 0 (0000:19:00.0): not registered with the NVLink fabric (state not started): the fabric manager has not set up "
                + "the NVSwitches, and CUDA jobs fail until it does", notStarted.message());
        Finding progress = Pipeline.about(v, "fabric", "GPU 1");
        assertEquals(Severity.WARN, progress.severity());
        assertTrue(progress.message().startsWith("GPU 1 (0000:29:00.0): NVLink fabric registration still in progress"), progress.message());
        Finding failed = Pipeline.about(v, "fabric", "GPU 2");
        assertEquals(Severity.FAIL, failed.severity());
        assertEquals(Remedy.REBOOT, failed.remedy());
        assertFalse(failed.latched(), "NVML's registration state is read afresh every run: not a latched fault");
        assertTrue(failed.message().startsWith("GPU 2 (0000:39:00.0): NVLink fabric registration failed (UNKNOWN"), failed.message());
        Finding route = Pipeline.about(v, "fabric", "GPU 3");
        assertEquals(Severity.FAIL, route.severity());
        assertEquals(Remedy.RESET_GPU, route.remedy());
        assertEquals("GPU 3 (0000:49:00.0): an NVLink fabric route to this GPU is unhealthy", route.message(),
                "the specific fault, not the summary that follows from it");
        assertEquals(Severity.WARN, Pipeline.about(v, "fabric", "GPU 4").severity());
        assertEquals("GPU 4 (0000:59:00.0): NVLink fabric bandwidth degraded", Pipeline.about(v, "fabric", "GPU 4").message());
        assertEquals("GPU 5 (0000:69:00.0): NVLink fabric at limited capacity", Pipeline.about(v, "fabric", "GPU 5").message());
        Finding config = Pipeline.about(v, "fabric", "GPU 6");
        assertEquals(Severity.FAIL, config.severity());
        assertEquals("GPU 6 (0000:79:00.0): NVLink fabric misconfigured: insufficient-nvlinks", config.message());
        assertEquals("GPU 7 (0000:89:00.0): the NVLink fabric is recovering a route to this GPU", Pipeline.about(v, "fabric", "GPU 7").message());
        assertEquals(Severity.WARN, Pipeline.about(v, "fabric", "GPU 7").severity());
    }

    @Test
    void aHungFabricCallFailsThatGpuNamingTheCall() throws Exception {
        List<Map<String, Object>> gpus = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            Map<String, Object> g = FakeNvml.healthyH100(i);
            g.put("fabric", healthyFabric());
            gpus.add(g);
        }
        gpus.get(1).put("delays_ms", Map.of("nvmlDeviceGetGpuFabricInfoV", 60_000));
        FakeNvml.use(FakeNvml.scenario(gpus));
        Verdict v = run("log: none");
        Finding hung = Pipeline.about(v, "fabric", "GPU 1");
        assertEquals(Severity.FAIL, hung.severity());
        assertTrue(hung.message().contains("nvmlDeviceGetGpuFabricInfoV blocked"), hung.message());
        assertEquals(Severity.PASS, Pipeline.about(v, "fabric", "GPU 0").severity());
    }

    // ---------------------------------------------------------------- the fabric manager service

    @Test
    void onAFabricNodeAStoppedOrMissingFabricManagerFailsAndAStartingOneWarns() throws Exception {
        gpus(healthyFabric());
        unit("failed", "failed");
        Finding stopped = Pipeline.about(run("log: none"), "fabric", UNIT);
        assertEquals(Severity.FAIL, stopped.severity());
        assertEquals(UNIT + " is failed (failed); this node's NVSwitch fabric needs it (start it, after a GPU reset if GPUs were in use)",
                stopped.message());

        unit("activating", "start");
        Finding starting = Pipeline.about(run("log: none"), "fabric", UNIT);
        assertEquals(Severity.WARN, starting.severity());
        assertEquals(UNIT + " is still starting (setting up the NVSwitch fabric)", starting.message());

        Files.delete(root.resolve("bin/unit-" + UNIT));
        Finding missing = Pipeline.about(run("log: none"), "fabric", UNIT);
        assertEquals(Severity.FAIL, missing.severity());
        assertEquals(UNIT + " is not installed, and this node's NVSwitch fabric needs it", missing.message());
    }

    @Test
    void theServiceIsReadOnlyWhereTheNodeNeedsItOrTheCheckSaysSo() throws Exception {
        gpus(null);                                  // PCIe GPUs: no fabric
        unit("inactive", "dead");
        Verdict pcie = run("log: none");
        assertEquals(Severity.PASS, Pipeline.severity(pcie, "fabric"));
        assertFalse(systemctlCalled(), "no NVSwitches, no fabric_manager key: the unit is not read");

        Finding required = Pipeline.about(run("fabric_manager: required, log: none"), "fabric", UNIT);
        assertEquals(Severity.FAIL, required.severity());

        Finding optional = Pipeline.about(run("fabric_manager: optional, log: none"), "fabric", UNIT);
        assertEquals(Severity.WARN, optional.severity());
        assertEquals(UNIT + " is inactive (dead) (fabric_manager: optional)", optional.message());
        Files.delete(root.resolve("bin/unit-" + UNIT));
        assertEquals(Severity.PASS, Pipeline.about(run("fabric_manager: optional, log: none"), "fabric", UNIT).severity(),
                "optional and not installed: nothing to say");

        gpus(healthyFabric());
        Files.delete(root.resolve("bin/calls"));
        Verdict ignored = run("fabric_manager: ignore, log: none");
        assertFalse(systemctlCalled(), "ignore: not read even on a fabric node");
        assertEquals(Severity.PASS, Pipeline.severity(ignored, "fabric"));
    }

    @Test
    void aSystemctlThatCannotAnswerLeavesTheUnitUnknown() throws Exception {
        gpus(healthyFabric());
        Path broken = Scripts.write(root.resolve("bin"), "broken", "echo 'Failed to connect to bus: No such file or directory' >&2; exit 1");
        Finding f = Pipeline.about(pipeline().run("- name: fabric\n  use: gpu.fabric\n  with: { systemctl: " + broken + ", log: none }\n"),
                "fabric", UNIT);
        assertEquals(Severity.UNKNOWN, f.severity());
        assertTrue(f.message().contains("show " + UNIT + " exited with 1"), f.message());
    }

    // ---------------------------------------------------------------- the fabric manager log

    @Test
    void aFatalNvswitchErrorFailsAndStaysFailingUntilNhcClear() throws Exception {
        gpus(healthyFabric());
        log(fatal(BOOT.plusSeconds(3600), 24007, "00000000:C4:00.0", 6, 17));
        Pipeline p = pipeline();
        Verdict first = p.run(check("", ""));
        Finding f = Pipeline.about(first, "fabric", "NVSwitch 0000:c4:00.0 (physical id 6)");
        assertEquals(Severity.FAIL, f.severity());
        assertEquals(Remedy.REBOOT, f.remedy());
        assertTrue(f.latched());
        assertEquals("NVSwitch 0000:c4:00.0 (physical id 6): fatal error SXid 24007 (sourcetrack timeout error) on port 17 (1 line, at "
                + STAMP.format(BOOT.plusSeconds(3600)) + "); stays failing until reboot or `nhc clear fabric`", f.message());
        assertEquals(Entity.Kind.NVSWITCH, f.entity().kind());

        Verdict second = p.run(check("", ""));
        assertEquals(Severity.FAIL, Pipeline.about(second, "fabric", "NVSwitch 0000:c4:00.0 (physical id 6)").severity(),
                "latched: no new line, still failing");

        log(fatal(BOOT.plusSeconds(3700), 24007, "00000000:C4:00.0", 6, 17),
                fatal(BOOT.plusSeconds(3800), 22013, "00000000:C4:00.0", 6, 3));
        Finding more = Pipeline.about(p.run(check("", "")), "fabric", "NVSwitch 0000:c4:00.0 (physical id 6)");
        assertEquals("NVSwitch 0000:c4:00.0 (physical id 6): fatal error SXid 24007 (sourcetrack timeout error) on port 17, SXid 22013 (Minion Link DLREQ interrupt) on port 3 (3 lines, first at "
                + STAMP.format(BOOT.plusSeconds(3600)) + "); stays failing until reboot or `nhc clear fabric`", more.message());

        StateStore store = new StateStore(root.resolve("var/lib/nhc"));
        new GpuFabricProbe().clear(store.section("check.fabric"));     // what nhc clear fabric does
        store.flush();
        Verdict cleared = p.run(check("", ""));
        assertEquals(Severity.PASS, Pipeline.severity(cleared, "fabric"), "cleared, and the old lines are not read again: " + bad(cleared));
    }

    @Test
    void aLatchedErrorStaysFailingWhenTheLogGoesAway() throws Exception {
        gpus(healthyFabric());
        log(fatal(BOOT.plusSeconds(3600), 24007, "00000000:C4:00.0", 6, 17));
        Pipeline p = pipeline();
        assertEquals(Severity.FAIL, Pipeline.severity(p.run(check("", "")), "fabric"));
        Files.delete(root.resolve(LOG.substring(1)));
        Verdict v = p.run(check("", ""));
        assertEquals(Severity.FAIL, Pipeline.about(v, "fabric", "NVSwitch 0000:c4:00.0 (physical id 6)").severity(),
                "a deleted or rotated-away log does not make the NVSwitch pass");
        assertEquals(Severity.UNKNOWN, Pipeline.about(v, "fabric", "fabric manager log " + root.resolve(LOG.substring(1))).severity());
    }

    /** A healthy fabric node, run once: the log's cursor is at its end. */
    private Pipeline aFabricNodeWhoseLogWasRead() throws Exception {
        gpus(healthyFabric());
        log(stamped(BOOT.plusSeconds(60), "INFO", "Fabric Manager started"));
        Pipeline p = pipeline();
        assertEquals(Severity.PASS, Pipeline.severity(p.run(check("", "")), "fabric"));
        return p;
    }

    @Test
    void aFatalErrorLoggedJustBeforeTheLogWasRotatedIsStillJudged() throws Exception {
        Pipeline p = aFabricNodeWhoseLogWasRead();

        log(fatal(BOOT.plusSeconds(3600), 24007, "00000000:C4:00.0", 6, 17));
        Path log = root.resolve(LOG.substring(1));
        Files.move(log, log.resolveSibling("fabricmanager.log.1"));     // what logrotate does
        log(stamped(BOOT.plusSeconds(3700), "INFO", "log file reopened"));

        Verdict v = p.run(check("", ""));
        Finding f = Pipeline.about(v, "fabric", "NVSwitch 0000:c4:00.0 (physical id 6)");
        assertEquals(Severity.FAIL, f.severity());
        assertTrue(f.message().startsWith("NVSwitch 0000:c4:00.0 (physical id 6): fatal error SXid 24007 (sourcetrack timeout error) on port 17 (1 line"), f.message());
        assertEquals(2L, Pipeline.about(v, "fabric", "fabric manager log " + log).observed().get("lines_read"),
                "the rotated file's new line and the new file's");
    }

    @Test
    void aFatalErrorAfterNulPaddingAndAtTheHeadOfAnOverlongLineIsJudged() throws Exception {
        gpus(healthyFabric());
        Path log = root.resolve(LOG.substring(1));
        log(stamped(BOOT.plusSeconds(60), "INFO", "Fabric Manager started"));
        Files.write(log, new byte[3 << 20], StandardOpenOption.APPEND);  // a crash's NUL blocks
        log(fatal(BOOT.plusSeconds(3600), 24007, "00000000:C4:00.0", 6, 17) + " " + "x".repeat(200 * 1024),
                nonFatal(BOOT.plusSeconds(3601), 19084, "00000000:C5:00.0", 7, 40));

        Verdict v = run("");
        assertEquals(Severity.FAIL, Pipeline.about(v, "fabric", "NVSwitch 0000:c4:00.0 (physical id 6)").severity());
        assertEquals(Severity.WARN, Pipeline.about(v, "fabric", "NVSwitch 0000:c5:00.0 (physical id 7)").severity(),
                "the line after the overlong one is read too");
    }

    @Test
    void anInvalidCursorValueWarnsOnceAndTheLogIsReadFromItsStart() throws Exception {
        Pipeline p = aFabricNodeWhoseLogWasRead();
        StateStore store = new StateStore(root.resolve("var/lib/nhc"));
        store.section("check.fabric").put("fmlog.offset", "a lot");
        store.flush();
        log(stamped(BOOT.plusSeconds(120), "INFO", "a new line"));

        String logLabel = "fabric manager log " + root.resolve(LOG.substring(1));
        Finding cursor = Pipeline.about(p.run(check("", "")), "fabric", logLabel);
        assertEquals(Severity.WARN, cursor.severity());
        assertEquals("fabric manager log cursor: state value fmlog.offset = \"a lot\" is invalid "
                + "(expected a whole number in 0..9223372036854775807); reset it", cursor.message());
        assertEquals(2L, cursor.observed().get("lines_read"), "read from its start");
        Verdict after = p.run(check("", ""));
        assertEquals(Severity.PASS, Pipeline.about(after, "fabric", logLabel).severity(), "the cursor is whole again");
        assertEquals(0L, Pipeline.about(after, "fabric", logLabel).observed().get("lines_read"));
    }

    @Test
    void aRebootDropsTheLatchedErrors() throws Exception {
        gpus(healthyFabric());
        log(fatal(BOOT.plusSeconds(3600), 24007, "00000000:C4:00.0", 6, 17));
        Pipeline p = pipeline();
        assertEquals(Severity.FAIL, Pipeline.severity(p.run(check("", "")), "fabric"));
        write("/proc/sys/kernel/random/boot_id", "boot-2\n");
        write("/proc/stat", "btime " + Instant.now().getEpochSecond() + "\n");
        assertEquals(Severity.PASS, Pipeline.severity(p.run(check("", "")), "fabric"));
    }

    @Test
    void aNonFatalErrorWarnsInTheRunThatSeesIt() throws Exception {
        gpus(healthyFabric());
        log(nonFatal(BOOT.plusSeconds(60), 19084, "00000000:C5:00.0", 7, 40),
                nonFatal(BOOT.plusSeconds(61), 19084, "00000000:C5:00.0", 7, 40));
        Pipeline p = pipeline();
        Finding w = Pipeline.about(p.run(check("", "")), "fabric", "NVSwitch 0000:c5:00.0 (physical id 7)");
        assertEquals(Severity.WARN, w.severity());
        assertEquals("NVSwitch 0000:c5:00.0 (physical id 7): non-fatal error SXid 19084 (AN1 Heartbeat Timeout Error) on port 40 (2 lines, first at "
                + STAMP.format(BOOT.plusSeconds(60)) + ")", w.message());
        assertEquals(Severity.PASS, Pipeline.severity(p.run(check("", "")), "fabric"), "not latched");
    }

    @Test
    void errorsLoggedBeforeThisBootAreNotJudged() throws Exception {
        gpus(healthyFabric());
        log(fatal(BOOT.minus(Duration.ofDays(3)), 24007, "00000000:C4:00.0", 6, 17));
        TestProbeContext ctx = new TestProbeContext(root).setting("nvml_library", FakeNvml.library()).budget(Duration.ofSeconds(8))
                .with(new GpuFabricProbe().spec(), "{ systemctl: " + systemctl + " }");
        ProbeResult r = new GpuFabricProbe().probe(ctx);
        assertEquals(1L, find(r, Entity.Kind.LOG).get("before_boot_errors"));
        assertTrue(r.observations().stream().noneMatch(o -> o.entity().kind() == Entity.Kind.NVSWITCH));
    }

    @Test
    void aGpuNvlinkErrorOfTheLogIsAboutThatGpu() throws Exception {
        gpus(healthyFabric());
        log(stamped(BOOT.plusSeconds(90), "ERROR", "Fabric Manager detected GPU NVL Fatal error on :"), "gpuGuid : 0x7a11c0ffee000042",
                "portNum : 12", "errorCode : 0x05", "");
        Finding f = Pipeline.about(run(""), "fabric", "GPU with GUID 0x7a11c0ffee000042");
        assertEquals(Severity.FAIL, f.severity());
        assertTrue(f.message().startsWith("GPU with GUID 0x7a11c0ffee000042: fatal error NVLink errorCode 0x05 on port 12 (1 line"), f.message());
    }

    @Test
    void aMissingLogIsUnknownOnlyOnANodeThatNeedsTheFabricManager() throws Exception {
        gpus(healthyFabric());
        Finding f = Pipeline.about(run(""), "fabric", "fabric manager log " + root.resolve(LOG.substring(1)));
        assertEquals(Severity.UNKNOWN, f.severity());
        assertTrue(f.message().contains("no such file (set the check's log: to the LOG_FILE_NAME of fabricmanager.cfg, or log: none)"),
                f.message());

        gpus(null);
        assertEquals(Severity.PASS, Pipeline.severity(run(""), "fabric"), "a PCIe node has no fabric manager log");
    }

    @Test
    void aDamagedLatchIsNotTrustedAndItsLossIsUnknownUntilNhcClear() throws Exception {
        gpus(healthyFabric());
        log(fatal(BOOT.plusSeconds(3600), 24007, "00000000:C4:00.0", 6, 17));
        Pipeline p = pipeline();
        assertEquals(Severity.FAIL, Pipeline.severity(p.run(check("", "")), "fabric"));
        Path state = root.resolve("var/lib/nhc/check.fabric.json");
        String json = Files.readString(state);
        assertTrue(json.contains("\"fm.latched\""), json);
        String damaged = json.replaceAll("\"lines\"\\s*:\\s*1", "\"lines\": \"many\"");
        assertFalse(damaged.equals(json), "the test damaged the latch");
        Files.writeString(state, damaged);

        String logLabel = "fabric manager log " + root.resolve(LOG.substring(1));
        for (int run = 0; run < 2; run++) {
            Verdict v = p.run(check("", ""));
            Finding lost = Pipeline.about(v, "fabric", logLabel);
            assertEquals(Severity.UNKNOWN, lost.severity(), "run " + run + ": " + lost);
            assertEquals("latched fabric manager errors could not be read back from the check's state (1 saved entry is damaged); "
                    + "fatal NVSwitch errors of this boot may be missing until reboot or `nhc clear fabric`", lost.message());
            assertTrue(Pipeline.findings(v, "fabric").stream().noneMatch(f -> f.entity().kind() == Entity.Kind.NVSWITCH),
                    "the damaged entry is dropped, not trusted");
        }
        StateStore store = new StateStore(root.resolve("var/lib/nhc"));
        new GpuFabricProbe().clear(store.section("check.fabric"));
        store.flush();
        assertEquals(Severity.PASS, Pipeline.severity(p.run(check("", "")), "fabric"), "after nhc clear");
    }

    /** An unreadable state file is said once per run, run after run: the reason does not grow. */
    @Test
    void aLostStateIsUnknownWithTheSameReasonEveryRun() throws Exception {
        gpus(healthyFabric());
        log(fatal(BOOT.plusSeconds(3600), 24007, "00000000:C4:00.0", 6, 17));
        Pipeline p = pipeline();
        assertEquals(Severity.FAIL, Pipeline.severity(p.run(check("", "")), "fabric"));
        Path state = root.resolve("var/lib/nhc/check.fabric.json");
        Files.writeString(state, "{ broken");
        Files.writeString(state.resolveSibling("check.fabric.json.prev"), "{ broken");

        String logLabel = "fabric manager log " + root.resolve(LOG.substring(1));
        String first = null;
        for (int run = 0; run < 4; run++) {
            Finding lost = Pipeline.about(p.run(check("", "")), "fabric", logLabel);
            assertEquals(Severity.UNKNOWN, lost.severity(), "run " + run + ": " + lost);
            assertEquals(1, lost.message().split("state unreadable", -1).length - 1, lost.message());
            if (first == null) {
                first = lost.message();
            }
            assertEquals(first, lost.message(), "run " + run);
        }
    }

    // ---------------------------------------------------------------- the config's own rules

    @Test
    void aChecksFailAndWarnReplaceTheDefaultsAndNoneDropsThem() throws Exception {
        Map<String, Object> progress = dev.nhc.checks.gpu.GpuFabricTest.fabric(2, 0, 0, 0);
        gpus(progress);
        log(fatal(BOOT.plusSeconds(3600), 24007, "00000000:C4:00.0", 6, 17),
                nonFatal(BOOT.plusSeconds(3601), 19084, "00000000:C5:00.0", 7, 40));
        Pipeline p = pipeline();
        Verdict v = p.run(check("", "  fail: { fatal_errors: \"> 2\" }\n  warn: none\n"));
        assertEquals(List.of(), bad(v), "one fatal line is under the check's own threshold, and no default warns");

        log(nonFatal(BOOT.plusSeconds(3700), 19084, "00000000:C5:00.0", 7, 40));
        Verdict own = p.run(check("", "  warn: { fabric_state: in-progress }\n"));
        Finding gpu = Pipeline.about(own, "fabric", "GPU 0");
        assertEquals(Severity.WARN, gpu.severity());
        assertTrue(gpu.message().contains("in-progress"), gpu.message());
        assertEquals(Severity.PASS, Pipeline.about(own, "fabric", "NVSwitch 0000:c5:00.0 (physical id 7)").severity(),
                "the check's warn: replaced the default non-fatal warning");
        assertEquals(Severity.FAIL, Pipeline.about(own, "fabric", "NVSwitch 0000:c4:00.0 (physical id 6)").severity(),
                "its fail: rules are still the defaults");
    }

    @Test
    void aBadValueInWithIsAConfigErrorAtItsPlace() {
        for (String[] bad : new String[][] {
                {"fabric_manager: always", "'always' is not one of required, optional, ignore"},
                {"log: var/log/fabricmanager.log", "must be an absolute file path or none"},
                {"unit: \"-H evil\"", "must be a unit name such as nvidia-fabricmanager.service"},
                {"max_lines: 0", "must be at least 1"}}) {
            ConfigException e = assertThrows(ConfigException.class,
                    () -> pipeline().plan("- name: fabric\n  use: gpu.fabric\n  with: { " + bad[0] + " }\n"), bad[0]);
            assertTrue(e.getMessage().contains("nhc.yaml:") && e.getMessage().contains(bad[1]), e.getMessage());
        }
    }

    // ---------------------------------------------------------------- replay

    @Test
    void aReplayJudgesOnlyTheCapturesAndNeverTheMachineItRunsOn() throws Exception {
        gpus(healthyFabric());
        log(fatal(BOOT.plusSeconds(3600), 24007, "00000000:C4:00.0", 6, 17));   // the replaying machine's own log: not read
        Path captured = root.resolve("ticket-fm.log");
        Files.writeString(captured, nonFatal(Instant.parse("2025-01-10T08:00:00Z"), 19084, "00000000:07:00.0", 1, 5) + "\n");
        GpuSource smi = new CaptureGpuSource(NvidiaSmiCapture.parse("smi-q.txt", capture(fabric("In Progress", "N/A", null))));
        Verdict v = pipeline().service(FabricManagerLogCapture.class, new FabricManagerLogCapture(captured))
                .service(GpuSource.class, smi).run(check("", ""));
        assertEquals(Severity.WARN, Pipeline.about(v, "fabric", "GPU 0").severity(), "the capture's GPU, in progress");
        assertEquals(Severity.WARN, Pipeline.about(v, "fabric", "NVSwitch 0000:07:00.0 (physical id 1)").severity(),
                "the captured log's error, whenever it was logged");
        assertTrue(Pipeline.findings(v, "fabric").stream().noneMatch(f -> f.entity().label().startsWith("NVSwitch 0000:c4")));
        assertTrue(Pipeline.findings(v, "fabric").stream().noneMatch(f -> f.entity().kind() == Entity.Kind.SERVICE));
        assertFalse(systemctlCalled());
    }

    @Test
    void aReplayWithoutFabricDataSkipsTheCheck() throws Exception {
        GpuSource smi = new CaptureGpuSource(NvidiaSmiCapture.parse("smi-q.txt", capture("")));
        Verdict v = pipeline().service(GpuSource.class, smi).run(check("", ""));
        assertEquals(dev.nhc.model.CheckStatus.SKIPPED, Pipeline.result(v, "fabric").status());
        assertFalse(systemctlCalled());
    }
}
