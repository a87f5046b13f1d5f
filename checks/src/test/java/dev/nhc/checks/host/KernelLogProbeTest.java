package dev.nhc.checks.host;

import dev.nhc.engine.config.ConfigException;
import dev.nhc.engine.state.StateSection;
import dev.nhc.engine.state.StateStore;
import dev.nhc.engine.testing.TestProbeContext;
import dev.nhc.model.Finding;
import dev.nhc.model.Observation;
import dev.nhc.model.Severity;
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
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** kernel.log judged as {@code nhc run} judges it, on kernel log lines written here (the NIC ones in the kernel's and drivers' wording). */
class KernelLogProbeTest {
    private static final String LOG = "/var/log/kern.log";
    private static final String KLOG = "- { name: klog, use: kernel.log, with: { log: " + LOG + " } }";

    @TempDir
    Path root;
    private final KernelLogProbe probe = new KernelLogProbe();

    @BeforeEach
    void bootId() throws IOException {
        Path boot = root.resolve("proc/sys/kernel/random/boot_id");
        Files.createDirectories(boot.getParent());
        Files.writeString(boot, "boot-1\n");
    }

    private Pipeline pipeline() {
        return new Pipeline(root, probe);
    }

    private Verdict run() throws Exception {
        return pipeline().run(KLOG);
    }

    private void log(String text) throws IOException {
        Path p = root.resolve(LOG.substring(1));
        Files.createDirectories(p.getParent());
        Files.writeString(p, text, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    private static Optional<Finding> finding(Verdict v, String entity) {
        return Pipeline.findings(v, "klog").stream().filter(f -> f.entity().label().equals(entity)).findFirst();
    }

    private static List<Finding> problems(Verdict v) {
        return Pipeline.findings(v, "klog").stream().filter(f -> f.severity() != Severity.PASS).toList();
    }

    @Test
    void readOnlyRemountFailsAndStaysFailingUntilRebootOrClear() throws Exception {
        log("2026-11-22T04:00:00.000000Z node kernel: EXT4-fs (nvme0n1p2): Remounting filesystem read-only\n");
        Finding f = finding(run(), "filesystem read-only").orElseThrow();
        assertEquals(Severity.FAIL, f.severity());
        assertEquals("a filesystem was remounted read-only: 1 line since 2026-11-22T04:00:00Z, last: EXT4-fs (nvme0n1p2): Remounting "
                + "filesystem read-only — stays failing until reboot or `nhc clear klog`", f.message());
        for (int i = 0; i < 3; i++) {
            assertEquals(Severity.FAIL, finding(run(), "filesystem read-only").orElseThrow().severity());
        }
        StateStore store = new StateStore(root.resolve("var/lib/nhc"));
        probe.clear(store.section("check.klog"));
        store.flush();
        assertTrue(finding(run(), "filesystem read-only").isEmpty());

        log("[9.0] Buffer I/O error on dev sda1, logical block 0, async page read\n");
        assertEquals(Severity.FAIL, finding(run(), "block I/O error").orElseThrow().severity());
        Files.writeString(root.resolve("proc/sys/kernel/random/boot_id"), "boot-2\n");
        assertEquals(List.of(), problems(run()));
    }

    /** A damaged cursor value (issue 13 item 5) is reset and said once, as a warning; the remount after it still fails. */
    @Test
    void anInvalidCursorValueInStateWarnsOnceAndTheNewLinesAreStillJudged() throws Exception {
        log("[1.0] usb 1-1: new device\n");
        assertEquals(List.of(), problems(run()));
        StateStore store = new StateStore(root.resolve("var/lib/nhc"));
        store.section("check.klog").put("log.offset", "a lot");
        store.section("check.klog").put("log.tail_len", 100_000L);
        store.flush();
        log("[2.0] EXT4-fs (nvme0n1p2): Remounting filesystem read-only\n");

        Verdict v = run();

        assertEquals(Severity.FAIL, finding(v, "filesystem read-only").orElseThrow().severity());
        Finding cursor = finding(v, "kernel log").orElseThrow();
        assertEquals(Severity.WARN, cursor.severity());
        assertEquals("kernel log cursor: state value log.offset = \"a lot\" is invalid (expected a whole number in 0..9223372036854775807); "
                + "reset it; state value log.tail_len = 100000 is invalid (expected a whole number in 0..256); reset it", cursor.message());
        assertEquals(2L, cursor.observed().get("cursor_resets"));
        assertEquals(Severity.PASS, finding(run(), "kernel log").orElseThrow().severity(), "the cursor is whole again");
    }

    @Test
    void warningsReportOnlyTheRunThatSawThem() throws Exception {
        log("[1.0] watchdog: BUG: soft lockup - CPU#3 stuck for 23s! [python:1234]\n"
                + "[2.0] INFO: task kworker/1:1:77 blocked for more than 120 seconds.\n"
                + "[3.0] Out of memory: Killed process 123 (python)\n");
        Verdict v = run();
        assertEquals(Severity.WARN, finding(v, "soft lockup").orElseThrow().severity());
        assertEquals(Severity.WARN, finding(v, "hung task").orElseThrow().severity());
        Finding oom = finding(v, "out of memory").orElseThrow();
        assertEquals(Severity.WARN, oom.severity());
        assertEquals("the OOM killer ran: 1 line since the last run, last at [3.000000]: Out of memory: Killed process 123 (python)", oom.message());
        assertEquals(List.of(), problems(run()));
    }

    @Test
    void configuredPatternsReplaceTheDefaults() throws Exception {
        log("[1.0] mlx5_core 0000:17:00.0: mlx5_health_check: device's health compromised\n"
                + "[2.0] watchdog: BUG: soft lockup - CPU#3 stuck for 23s! [python:1234]\n");
        Verdict v = pipeline().run("""
                - name: klog
                  use: kernel.log
                  with:
                    log: /var/log/kern.log
                    patterns:
                      - { regex: "mlx5_core \\\\S+: mlx5_health_check: .*compromised", severity: fail, message: ConnectX health compromised, name: mlx5 }
                """);
        Finding f = finding(v, "mlx5").orElseThrow();
        assertEquals(Severity.FAIL, f.severity());
        assertTrue(f.message().startsWith("ConnectX health compromised: 1 line since [1.000000]"), f.message());
        assertTrue(finding(v, "soft lockup").isEmpty());
        assertEquals(1L, f.observed().get("matches"));
    }

    @Test
    void aConfigsWarnAndFailReplaceTheDefaultRulesAndNoneDropsThem() throws Exception {
        String lockup = "watchdog: BUG: soft lockup - CPU#3 stuck for 23s! [python:1234]\n";
        log("[1.0] " + lockup + "[1.1] " + lockup + "[1.2] Buffer I/O error on dev sdb\n");
        // Warn patterns count only from three lines a run; fail patterns no longer fail.
        Verdict v = pipeline().run("- { name: klog, use: kernel.log, with: { log: " + LOG + " }, warn: { severity: warn, matches: \">= 3\" }, "
                + "fail: none }");
        assertEquals(Severity.PASS, finding(v, "soft lockup").orElseThrow().severity());
        assertEquals(Severity.PASS, finding(v, "block I/O error").orElseThrow().severity(), "fail: none drops the default fail rules");
        log("[2.0] " + lockup + "[2.1] " + lockup + "[2.2] " + lockup);
        Verdict three = pipeline().run("- { name: klog, use: kernel.log, with: { log: " + LOG + " }, warn: { severity: warn, matches: \">= 3\" }, "
                + "fail: none }");
        Finding f = finding(three, "soft lockup").orElseThrow();
        assertEquals(Severity.WARN, f.severity());
        assertEquals("soft lockup: severity is 'warn', matches 3 >= 3", f.message());
    }

    /** Was an UNKNOWN at run time; now the config does not load (exit 2 at nhc check-config), with the place. */
    @Test
    void badPatternsAreConfigErrorsNamingTheItem() {
        ConfigException regex = assertThrows(ConfigException.class, () -> pipeline().plan(
                "- { name: klog, use: kernel.log, with: { patterns: [ { regex: ok }, { regex: \"(\", severity: fail } ] } }"));
        assertTrue(regex.problems().get(0).toString().matches("nhc\\.yaml:\\d+:\\d+: 'patterns' in .*patterns\\[1]\\.regex is not a valid regular expression.*"),
                regex.problems().toString());
        ConfigException severity = assertThrows(ConfigException.class, () -> pipeline().plan(
                "- { name: klog, use: kernel.log, with: { patterns: [ { regex: x, severity: critical } ] } }"));
        assertTrue(severity.problems().get(0).message().endsWith("patterns[0].severity must be warn or fail, not 'critical'"),
                severity.problems().toString());
        ConfigException key = assertThrows(ConfigException.class, () -> pipeline().plan(
                "- { name: klog, use: kernel.log, with: { patterns: [ { regex: x, sevrity: fail } ] } }"));
        assertTrue(key.problems().get(0).message().contains("patterns[0]: unknown key 'sevrity'"), key.problems().toString());
        ConfigException twice = assertThrows(ConfigException.class, () -> pipeline().plan(
                "- { name: klog, use: kernel.log, with: { patterns: [ { regex: x, name: a }, { regex: y, name: a } ] } }"));
        assertTrue(twice.problems().get(0).message().contains("another pattern is already named 'a'"), twice.problems().toString());
        ConfigException after = assertThrows(ConfigException.class, () -> pipeline().plan(
                "- { name: klog, use: kernel.log, with: { patterns: [ { regex: x, after_boot: soon } ] } }"));
        assertTrue(after.problems().get(0).message().contains("patterns[0].after_boot must be a duration such as 5m, not 'soon'"),
                after.problems().toString());
    }

    /** Who wrote a line without a header nhc knows cannot be told: it is not judged, and the run says so. */
    @Test
    void unparsedLinesAreCountedAndWarnedOfNotJudged() throws Exception {
        log("??? Buffer I/O error on dev sdb\n");
        Verdict v = run();
        Observation log = Pipeline.result(v, "klog").observations().stream().filter(o -> o.entity().label().equals("kernel log"))
                .findFirst().orElseThrow();
        assertEquals(1L, log.get("unparsed_lines"));
        assertTrue(finding(v, "block I/O error").isEmpty());
        Finding w = finding(v, "kernel log").orElseThrow();
        assertEquals(Severity.WARN, w.severity());
        assertTrue(w.message().startsWith("1 new line in ") && w.message().endsWith("has no header nhc knows (a timestamp; in a syslog "
                + "file the kernel: tag), so nhc cannot tell that the kernel wrote it: not judged"), w.message());
    }

    /** Patterns are matched from the start of a kernel record: an admin's that begins with a wildcard is a config error, with its place. */
    @Test
    void aPatternThatBeginsWithAWildcardIsAConfigError() {
        ConfigException e = assertThrows(ConfigException.class, () -> pipeline().plan(
                "- { name: klog, use: kernel.log, with: { patterns: [ { regex: \".*Remounting filesystem read-only\", severity: fail } ] } }"));
        assertTrue(e.problems().get(0).toString().matches("nhc\\.yaml:\\d+:\\d+: 'patterns' in .*patterns\\[0]\\.regex begins with the "
                + "wildcard '\\.\\*'.*begin with what the kernel prints first.*"), e.problems().toString());
    }

    /**
     * An admin's regex that backtracks without end, and a kernel record with a user's text in it
     * (the file name of a program that hit a general protection fault): the line is given up on and
     * said, the cursor moves past it, and the next run judges the next line. It used to pin a core
     * and leave the check unknown forever.
     */
    @Test
    void aRegexThatGivesUpOnALineWarnsAndTheReadingGoesOn() throws Exception {
        String check = """
                - name: klog
                  use: kernel.log
                  with:
                    log: /var/log/kern.log
                    patterns:
                      - { regex: "traps: \\\\S+ general protection fault ip:\\\\S+ sp:\\\\S+ error:\\\\d+ in (.*a){20}x", name: evil trap }
                      - { regex: "Buffer I/O error on dev ", severity: fail, name: io }
                """;
        log("[1.0] traps: python3.11[4242] general protection fault ip:401000 sp:7ffc2a2f9650 error:0 in " + "a".repeat(40) + "[401000+1000]\n");
        Verdict v = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(60), () -> pipeline().run(check));
        Finding w = finding(v, "kernel log").orElseThrow();
        assertEquals(Severity.WARN, w.severity());
        assertTrue(w.message().startsWith("the regex of pattern 'evil trap' gave up on 1 line (it read more than "), w.message());
        assertEquals(1L, w.observed().get("regex_gave_up"));

        log("[2.0] Buffer I/O error on dev sdb, logical block 0, async page read\n");
        Verdict next = pipeline().run(check);
        assertEquals(Severity.FAIL, finding(next, "io").orElseThrow().severity());
        assertEquals(Severity.PASS, finding(next, "kernel log").orElseThrow().severity(), "the hostile line is behind the cursor");
    }

    /**
     * after_boot is measured by the kernel's own uptime stamp, never by comparing a wall-clock stamp
     * with btime: a syslog line without one counts, whatever its time says.
     */
    @Test
    void afterBootReadsTheKernelsUptimeNotTheWallClock() throws Exception {
        Path stat = root.resolve("proc/stat");
        Files.writeString(stat, "btime 1795320000\n"); // 2026-11-22T04:00:00Z
        log("2026-11-22T04:01:00.000000Z node kernel: [   60.000000] mlx5_core 0000:3b:00.0 ens1np0: Link down\n");
        assertEquals(List.of(), problems(run()), "the kernel's stamp says: a minute after boot");
        log("2026-11-22T04:01:00.000000Z node kernel: mlx5_core 0000:3b:00.0 ens1np0: Link down\n");
        assertEquals(Severity.WARN, finding(run(), "NIC link down").orElseThrow().severity(),
                "no kernel stamp: the line cannot be placed in the boot, so it counts");
    }

    @Test
    void latchOffReportsFailOnlyOnce() throws Exception {
        log("[1.0] Buffer I/O error on dev sdb\n");
        String check = "- { name: klog, use: kernel.log, with: { log: " + LOG + ", latch: false } }";
        Finding f = finding(pipeline().run(check), "block I/O error").orElseThrow();
        assertEquals(Severity.FAIL, f.severity());
        assertEquals("block device I/O errors: 1 line since the last run, last at [1.000000]: Buffer I/O error on dev sdb", f.message());
        assertFalse(f.latched(), "with latch: false nothing stays until reboot, so nothing is for Slurm's repair ladder");
        assertEquals(List.of(), problems(pipeline().run(check)));
    }

    /** The reader stopped at the check's deadline: the kernel log says it is behind, and warns by default. */
    @Test
    void aLogNotReadToItsEndInTimeIsObservedAsBehind() throws Exception {
        log("[1.0] a\n[2.0] b\n");
        dev.nhc.probe.ProbeResult r = probe.probe(new dev.nhc.engine.testing.TestProbeContext(root).checkName("klog")
                .with(probe.spec(), "{ log: " + LOG + " }").budget(java.time.Duration.ZERO));
        Observation log = r.observations().stream().filter(o -> o.entity().label().equals("kernel log")).findFirst().orElseThrow();
        assertEquals(true, log.get("behind"));
        assertTrue(probe.spec().defaultRules().stream().anyMatch(rule -> rule.toString().contains("behind")),
                probe.spec().defaultRules().toString());
        Observation read = Pipeline.result(run(), "klog").observations().stream()
                .filter(o -> o.entity().label().equals("kernel log")).findFirst().orElseThrow();
        assertEquals(false, read.get("behind"));
    }

    @Test
    void unreadableLogIsUnknown() throws Exception {
        Finding f = finding(run(), "kernel log").orElseThrow();
        assertEquals(Severity.UNKNOWN, f.severity());
        assertTrue(f.message().contains("kern.log"), f.message());
    }

    @Test
    void withItsStateFilesLostALatchingCheckIsUnknown() throws Exception {
        log("[1.0] nothing to see\n");
        Path state = root.resolve("var/lib/nhc/check.klog.json");
        Files.createDirectories(state.getParent());
        Files.writeString(state, "{ broken");
        Finding f = finding(run(), "kernel log").orElseThrow();
        assertEquals(Severity.UNKNOWN, f.severity());
        assertTrue(f.message().contains("state unreadable: could not read check.klog.json (1:"), f.message());
        // The loss stays until nhc clear, said once: the reason must not grow with every run.
        for (int i = 2; i <= 4; i++) {
            Finding again = finding(run(), "kernel log").orElseThrow();
            assertEquals(Severity.UNKNOWN, again.severity());
            assertEquals(f.message(), again.message(), "run " + i);
        }
    }

    @Test
    void aLatchThatCannotBeReadBackIsUnknown() throws Exception {
        log("[1.0] Buffer I/O error on dev sdb\n");
        run();
        Path state = root.resolve("var/lib/nhc/check.klog.json");
        String text = Files.readString(state);
        assertTrue(text.contains("\"count\" : 1"), text);
        Files.writeString(state, text.replace("\"count\" : 1", "\"count\" : -1"));
        Finding f = finding(run(), "kernel log").orElseThrow();
        assertEquals(Severity.UNKNOWN, f.severity());
        assertTrue(f.message().startsWith("latched kernel log matches could not be read back from the check's state (1 saved entry is damaged)"),
                f.message());
        for (int i = 3; i <= 4; i++) {
            assertEquals(f.message(), finding(run(), "kernel log").orElseThrow().message(), "run " + i);
        }
    }

    // ---- the NIC and link defaults (issue 12 item 3), on lines in the kernel's and the drivers' own wording ----

    @Test
    void aNicThatTrainedBelowItsPcieCapabilityWarns() throws Exception {
        log("[4.101] mlx5_core 0000:3b:00.0: 63.008 Gb/s available PCIe bandwidth, limited by 8.0 GT/s PCIe x8 link at 0000:3a:00.0 "
                + "(capable of 252.048 Gb/s with 16.0 GT/s PCIe x16 link)\n"
                + "[4.102] mlx5_core 0000:5e:00.0: 252.048 Gb/s available PCIe bandwidth (16.0 GT/s PCIe x16 link)\n"
                // The PCI core says the same of every device at enumeration; a GPU idling at a low link speed is not a NIC fault.
                + "[0.52] pci 0000:19:00.0: 63.008 Gb/s available PCIe bandwidth, limited by 8.0 GT/s PCIe x8 link at 0000:18:00.0 "
                + "(capable of 504.112 Gb/s with 32.0 GT/s PCIe x16 link)\n");
        Verdict v = run();
        Finding f = finding(v, "NIC PCIe link degraded").orElseThrow();
        assertEquals(Severity.WARN, f.severity());
        assertEquals(1L, f.observed().get("matches"));
        assertTrue(f.message().startsWith("a NIC's PCIe link trained below its capability: 1 line since the last run, last at [4.101000]: "
                + "mlx5_core 0000:3b:00.0: 63.008 Gb/s"), f.message());
        assertEquals(Severity.WARN, Pipeline.severity(v, "klog"));
    }

    @Test
    void aNicLinkFlapWarnsButNotWhileInterfacesComeUpAtBoot() throws Exception {
        log("[12.5] mlx5_core 0000:3b:00.0 ens1np0: Link down\n[14.9] mlx5_core 0000:3b:00.0 ens1np0: Link up\n");
        assertEquals(List.of(), problems(run()), "the first minutes after boot do not count");
        log("[86400.1] mlx5_core 0000:3b:00.0 ens1np0: Link down\n[86401.7] mlx5_core 0000:3b:00.0 ens1np0: Link up\n"
                + "[86402.0] ice 0000:17:00.0 ens2f0: NIC Link is Down\n");
        Finding f = finding(run(), "NIC link down").orElseThrow();
        assertEquals(Severity.WARN, f.severity());
        assertEquals(2L, f.observed().get("matches"));
        assertEquals(List.of(), problems(run()), "a flap warns for the run that saw it");
    }

    /** systemd-networkd's "Lost carrier" is not the kernel's: in a syslog file only lines tagged kernel: are judged. */
    @Test
    void aBondSlaveIsALinkDownAndSystemdNetworkdsLostCarrierIsNot() throws Exception {
        log("2026-11-22T04:00:00.000000Z node kernel: bond0: (slave ens1f0): link status definitely down, disabling slave\n"
                + "2026-11-22T04:00:01.000000Z node systemd-networkd[812]: ib0: Lost carrier\n");
        Verdict v = run();
        Finding f = finding(v, "NIC link down").orElseThrow();
        assertEquals(Severity.WARN, f.severity());
        assertEquals(1L, f.observed().get("matches"));
        Observation log = Pipeline.result(v, "klog").observations().stream().filter(o -> o.entity().label().equals("kernel log"))
                .findFirst().orElseThrow();
        assertEquals(1L, log.get("other_lines"));
    }

    @Test
    void mlx5FatalHealthEventsFailAndLatch() throws Exception {
        log("[445.937186] mlx5_core 0000:0d:00.0: poll_health:801:(pid 0): device's health compromised - reached miss count\n"
                + "[445.937212] mlx5_core 0000:0d:00.0: print_health_info:431:(pid 0): Health issue observed, firmware internal error, "
                + "severity(3) ERROR:\n");
        Finding f = finding(run(), "NIC fatal error").orElseThrow();
        assertEquals(Severity.FAIL, f.severity());
        assertTrue(f.latched(), "latched by default: what Slurm's repair ladder may reboot for");
        assertEquals(2L, f.observed().get("lines"));
        assertTrue(f.message().startsWith("a Mellanox/NVIDIA NIC (mlx5) reported a fatal firmware or hardware error: 2 lines since [445.937186]"),
                f.message());
        assertEquals(Severity.FAIL, finding(run(), "NIC fatal error").orElseThrow().severity(), "latched until reboot or clear");

        log("[500.1] mlx5_core 0000:0e:00.0: poll_health:781:(pid 0): Fatal error 1 detected\n");
        assertEquals(3L, finding(run(), "NIC fatal error").orElseThrow().observed().get("lines"));
    }

    @Test
    void ordinaryMlx5AndLinkUpLinesAreNotFaults() throws Exception {
        log("[30.0] mlx5_core 0000:3b:00.0 ens1np0: Link up\n"
                + "[30.1] mlx5_core 0000:3b:00.0: E-Switch: Total vports 2, per vport: max uc(128) max mc(2048)\n"
                + "[30.2] IPv6: ADDRCONF(NETDEV_CHANGE): ib0: link becomes ready\n");
        assertEquals(List.of(), problems(run()));
    }

    // ---- observations, through the probe alone ----

    @Test
    void perPatternItObservesSeverityCountsAndASummary() throws Exception {
        log("[1.0] Buffer I/O error on dev sdb\n[2.0] Buffer I/O error on dev sdb, again\n");
        TestProbeContext c = new TestProbeContext(root).state(StateSection.detached("s")).checkName("klog").with(probe.spec(), "{ log: " + LOG + " }");
        ProbeResult r = probe.probe(c);
        Observation o = r.observations().stream().filter(x -> x.entity().label().equals("block I/O error")).findFirst().orElseThrow();
        assertEquals("fail", o.get("severity"));
        assertEquals(2L, o.get("matches"));
        assertEquals(2L, o.get("lines"));
        assertEquals("block device I/O errors: 2 lines since [1.000000], last: Buffer I/O error on dev sdb, again", o.get("summary"));
    }
}
