package dev.nhc.checks.host;

import dev.nhc.model.Finding;
import dev.nhc.model.Observation;
import dev.nhc.model.Severity;
import dev.nhc.probe.ProbeResult;
import dev.nhc.engine.state.StateSection;
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
import static org.junit.jupiter.api.Assertions.assertTrue;

class KernelLogProbeTest {
    @TempDir
    Path root;
    private final KernelLogProbe probe = new KernelLogProbe();

    private TestProbeContext ctx(StateSection s, Map<String, Object> with) throws IOException {
        TestProbeContext c = new TestProbeContext(root).state(s).checkName("klog");
        Map<String, Object> params = new HashMap<>(Map.of("log", "/var/log/kern.log"));
        params.putAll(with);
        if (!Files.exists(c.sys("/proc/sys/kernel/random/boot_id"))) {
            c.write("/proc/sys/kernel/random/boot_id", "boot-1\n");
        }
        return c.params(params);
    }

    private void log(String text) throws IOException {
        Path p = root.resolve("var/log/kern.log");
        Files.createDirectories(p.getParent());
        Files.writeString(p, text, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    private static Optional<Finding> finding(ProbeResult r, String entity) {
        return r.findings().stream().filter(f -> f.entity().equals(entity)).findFirst();
    }

    @Test
    void readOnlyRemountFailsAndStaysFailingUntilRebootOrClear() throws Exception {
        StateSection s = StateSection.detached("s");
        log("2026-11-22T04:00:00.000000Z node kernel: EXT4-fs (nvme0n1p2): Remounting filesystem read-only\n");
        Finding f = finding(probe.probe(ctx(s, Map.of())), "filesystem read-only").orElseThrow();
        assertEquals(Severity.FAIL, f.severity());
        assertTrue(f.message().startsWith("a filesystem was remounted read-only: 1 line since 2026-11-22T04:00:00Z"), f.message());
        for (int i = 0; i < 3; i++) {
            assertEquals(Severity.FAIL, finding(probe.probe(ctx(s, Map.of())), "filesystem read-only").orElseThrow().severity());
        }
        probe.clear(s);
        assertTrue(finding(probe.probe(ctx(s, Map.of())), "filesystem read-only").isEmpty());

        log("[9.0] Buffer I/O error on dev sda1, logical block 0, async page read\n");
        assertEquals(Severity.FAIL, finding(probe.probe(ctx(s, Map.of())), "block I/O error").orElseThrow().severity());
        Files.writeString(root.resolve("proc/sys/kernel/random/boot_id"), "boot-2\n");
        assertTrue(probe.probe(ctx(s, Map.of())).findings().isEmpty());
    }

    @Test
    void warningsReportOnlyTheRunThatSawThem() throws Exception {
        StateSection s = StateSection.detached("s");
        log("[1.0] watchdog: BUG: soft lockup - CPU#3 stuck for 23s! [python:1234]\n"
                + "[2.0] INFO: task kworker/1:1:77 blocked for more than 120 seconds.\n"
                + "[3.0] Out of memory: Killed process 123 (python)\n");
        ProbeResult r = probe.probe(ctx(s, Map.of()));
        assertEquals(Severity.WARN, finding(r, "soft lockup").orElseThrow().severity());
        assertEquals(Severity.WARN, finding(r, "hung task").orElseThrow().severity());
        assertEquals(Severity.WARN, finding(r, "out of memory").orElseThrow().severity());
        assertTrue(probe.probe(ctx(s, Map.of())).findings().isEmpty());
    }

    @Test
    void configuredPatternsReplaceTheDefaults() throws Exception {
        log("[1.0] mlx5_core 0000:17:00.0: mlx5_health_check: device's health compromised\n[2.0] soft lockup\n");
        ProbeResult r = probe.probe(ctx(StateSection.detached("s"), Map.of("patterns", List.of(
                Map.of("regex", "mlx5_health_check.*compromised", "severity", "fail", "message", "ConnectX health compromised", "name", "mlx5")))));
        Finding f = finding(r, "mlx5").orElseThrow();
        assertEquals(Severity.FAIL, f.severity());
        assertTrue(f.message().startsWith("ConnectX health compromised: 1 line since [1.000000]"), f.message());
        assertTrue(finding(r, "soft lockup").isEmpty());
        Observation matches = r.observations().stream().filter(o -> o.entity().equals("mlx5")).findFirst().orElseThrow();
        assertEquals(1L, matches.get("matches"));
    }

    @Test
    void badPatternsAreUnknownNamingTheItem() throws Exception {
        log("[1.0] x\n");
        Finding f = probe.probe(ctx(StateSection.detached("s"), Map.of("patterns", List.of(Map.of("regex", "ok"), Map.of("regex", "(", "severity", "fail")))))
                .findings().get(0);
        assertEquals(Severity.UNKNOWN, f.severity());
        assertTrue(f.message().contains("patterns[1].regex is not a valid regular expression"), f.message());
        Finding sev = probe.probe(ctx(StateSection.detached("s"), Map.of("patterns", List.of(Map.of("regex", "x", "severity", "critical")))))
                .findings().get(0);
        assertTrue(sev.message().contains("patterns[0].severity must be warn or fail, not 'critical'"), sev.message());
    }

    @Test
    void unparsedLinesAreCountedAndStillMatched() throws Exception {
        log("??? Buffer I/O error on dev sdb\n");
        ProbeResult r = probe.probe(ctx(StateSection.detached("s"), Map.of()));
        Observation log = r.observations().stream().filter(o -> o.entity().equals("kernel log")).findFirst().orElseThrow();
        assertEquals(1L, log.get("unparsed_lines"));
        assertEquals(Severity.FAIL, finding(r, "block I/O error").orElseThrow().severity());
    }

    @Test
    void latchOffReportsFailOnlyOnce() throws Exception {
        StateSection s = StateSection.detached("s");
        log("[1.0] Buffer I/O error on dev sdb\n");
        assertEquals(Severity.FAIL, finding(probe.probe(ctx(s, Map.of("latch", false))), "block I/O error").orElseThrow().severity());
        assertTrue(probe.probe(ctx(s, Map.of("latch", false))).findings().isEmpty());
    }

    @Test
    void unreadableLogIsUnknown() throws Exception {
        Finding f = probe.probe(ctx(StateSection.detached("s"), Map.of())).findings().get(0);
        assertEquals(Severity.UNKNOWN, f.severity());
        assertTrue(f.message().contains("kern.log"), f.message());
    }

    @Test
    void withItsStateLostALatchingCheckIsUnknownUntilCleared(@org.junit.jupiter.api.io.TempDir Path stateDir) throws Exception {
        Files.writeString(stateDir.resolve("check.klog.json"), "{ broken");
        dev.nhc.engine.state.StateStore store = new dev.nhc.engine.state.StateStore(stateDir);
        StateSection s = store.section("check.klog");
        log("[1.0] nothing to see\n");
        Finding f = finding(probe.probe(ctx(s, Map.of())), "state").orElseThrow();
        assertEquals(Severity.UNKNOWN, f.severity());
        assertTrue(f.message().startsWith("state unreadable: could not read check.klog.json (1:"), f.message());
        assertTrue(finding(probe.probe(ctx(s, Map.of("latch", false))), "state").isEmpty(), "a check that does not latch has nothing to forget");
        probe.clear(s);
        assertTrue(probe.probe(ctx(s, Map.of())).findings().isEmpty());
    }
}
