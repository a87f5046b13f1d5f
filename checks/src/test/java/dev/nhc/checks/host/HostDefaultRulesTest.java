package dev.nhc.checks.host;

import dev.nhc.engine.config.CheckConfig;
import dev.nhc.engine.config.Config;
import dev.nhc.engine.config.ConfigLoader;
import dev.nhc.checks.Judge;
import dev.nhc.engine.plan.Plan;
import dev.nhc.engine.plan.PlannedCheck;
import dev.nhc.engine.plan.ProbeRegistry;
import dev.nhc.rules.RuleEngine;
import dev.nhc.model.Finding;
import dev.nhc.model.Severity;
import dev.nhc.probe.Probe;
import dev.nhc.probe.ProbeResult;
import dev.nhc.engine.state.StateSection;
import dev.nhc.engine.testing.TestProbeContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The probes' default rules and configs over their fields, through the real config loader and rules engine. */
class HostDefaultRulesTest {
    private final ConfigLoader loader = new ConfigLoader(ProbeRegistry.load(), new RuleEngine(), List.of()).enforceOwnership(false);

    @TempDir
    Path root;

    private PlannedCheck check(String yaml) throws Exception {
        return loader.parse("nhc.yaml", "nhc: 1\nchecks:\n" + yaml, null).checks().get(0);
    }

    private List<Finding> judge(PlannedCheck check, Probe probe, TestProbeContext ctx) throws Exception {
        ProbeResult r = probe.probe(ctx.params(check.check().with().asMap()).checkName(check.name()));
        return Judge.judge(check, r);
    }

    private TestProbeContext dataMounted() throws Exception {
        TestProbeContext ctx = new TestProbeContext(root);
        ctx.write("/proc/self/mounts", "/dev/vdb /data xfs rw 0 0\n");
        return ctx;
    }

    /** 1000 blocks of 4 KiB with {@code avail} available, 1000 inodes with {@code ifree} free. */
    private static DiskUsageProbe disk(long avail, long ifree) {
        return new DiskUsageProbe((p, inodes) -> new Statvfs.Result(4096, 4096, 1000, avail, avail, 1000, ifree, ifree, 0, 0, 255));
    }

    @Test
    void diskUsageDefaultsWarnAbove90AndFailAbove98Percent() throws Exception {
        PlannedCheck c = check("  - name: data\n    use: disk.usage\n    with: { mount: /data }\n");
        Finding pass = judge(c, disk(200, 500), dataMounted()).get(0);
        assertEquals(Severity.PASS, pass.severity(), pass.message());

        Finding warn = judge(c, disk(50, 500), dataMounted()).get(0);
        assertEquals(Severity.WARN, warn.severity());
        assertEquals("/data is 95% full (200.0 KiB free)", warn.message());

        Finding fail = judge(c, disk(10, 500), dataMounted()).get(0);
        assertEquals(Severity.FAIL, fail.severity());
        assertEquals("/data is 99% full (40.0 KiB free)", fail.message());
        assertEquals("data", fail.check());
    }

    @Test
    void inodesHaveTheirOwnDefaults() throws Exception {
        PlannedCheck c = check("  - name: data\n    use: disk.usage\n    with: { mount: /data }\n");
        Finding fail = judge(c, disk(500, 5), dataMounted()).get(0);
        assertEquals(Severity.FAIL, fail.severity());
        assertEquals("/data has used 99.5% of its inodes (5 left)", fail.message());
    }

    @Test
    void aConfigsFailReplacesTheDefaultFailButKeepsTheWarn() throws Exception {
        PlannedCheck c = check("  - name: root-free\n    use: disk.usage\n    with: { mount: /data }\n    fail: { used_percent: \"> 99\" }\n");
        assertEquals(Severity.WARN, judge(c, disk(10, 500), dataMounted()).get(0).severity());
        assertEquals(Severity.FAIL, judge(c, disk(5, 500), dataMounted()).get(0).severity());
    }

    @Test
    void anUnmountedFilesystemFailsThroughTheRulesEngineToo() throws Exception {
        PlannedCheck c = check("  - name: scratch\n    use: disk.usage\n    with: { mount: /scratch }\n");
        List<Finding> out = judge(c, disk(500, 500), dataMounted());
        assertEquals(1, out.size());
        assertEquals(Severity.FAIL, out.get(0).severity());
        assertEquals("/scratch is not mounted", out.get(0).message());
        assertEquals("scratch", out.get(0).check());
    }

    @Test
    void loadWarnsAboveFourPerCpuByDefault() throws Exception {
        PlannedCheck c = check("  - name: loadavg\n    use: load\n");
        TestProbeContext ctx = new TestProbeContext(root);
        ctx.write("/proc/loadavg", "530.12 410.50 300.01 7/2345 99812\n");
        ctx.write("/sys/devices/system/cpu/online", "0-127\n");
        Finding f = judge(c, new LoadProbe(), ctx).get(0);
        assertEquals(Severity.WARN, f.severity());
        assertEquals("load 530.1 is 4.14 per CPU", f.message());

        ctx.write("/proc/loadavg", "130.00 110.50 100.01 7/2345 99812\n");
        assertEquals(Severity.PASS, judge(c, new LoadProbe(), ctx).get(0).severity());
    }

    @Test
    void memoryRulesTakeSizesWithUnits() throws Exception {
        PlannedCheck c = check("  - name: mem\n    use: memory\n    fail: { available: \"< 4GiB\" }\n");
        TestProbeContext ctx = new TestProbeContext(root);
        ctx.write("/proc/meminfo", "MemTotal: 16777216 kB\nMemFree: 1000000 kB\nMemAvailable: 3000000 kB\nSwapTotal: 0 kB\nSwapFree: 0 kB\n");
        Finding f = judge(c, new MemoryProbe(), ctx).get(0);
        assertEquals(Severity.FAIL, f.severity());
        assertTrue(f.message().contains("available"), f.message());
    }

    @Test
    void theBenchConfigIsValidAndJudgesThisNode() throws Exception {
        Path bench = Path.of(System.getProperty("user.dir")).resolve("../bench/configs/host-basic.yaml").normalize();
        Plan config = loader.parse(bench.toString(), Files.readString(bench), bench);
        assertEquals(List.of("root-mount", "root-free", "physmem", "load"), config.checks().stream().map(PlannedCheck::name).toList());
        for (PlannedCheck c : config.checks()) {
            Probe probe = c.probe();
            TestProbeContext ctx = new TestProbeContext(Path.of("/")).params(c.check().with().asMap()).checkName(c.name());
            List<Finding> out = Judge.judge(c, probe.probe(ctx));
            // Whether this machine passes is its own business (a container may have a read-only /);
            // what must hold is that every check could read it and came to a verdict.
            assertFalse(out.isEmpty(), c.name());
            for (Finding f : out) {
                assertTrue(f.severity() != Severity.UNKNOWN, c.name() + ": " + f.message());
            }
        }
    }

    @Test
    void theBenchConfigsMemoryBoundsFailOutsideTheRange() throws Exception {
        Path bench = Path.of(System.getProperty("user.dir")).resolve("../bench/configs/host-basic.yaml").normalize();
        PlannedCheck physmem = loader.parse(bench.toString(), Files.readString(bench), bench).check("physmem").orElseThrow();
        TestProbeContext ctx = new TestProbeContext(root);
        ctx.write("/proc/meminfo", "MemTotal: 11811160064 kB\n");
        assertEquals(Severity.FAIL, judge(physmem, new MemoryProbe(), ctx).get(0).severity());
        ctx.write("/proc/meminfo", "MemTotal: 0 kB\n");
        assertEquals(Severity.FAIL, judge(physmem, new MemoryProbe(), ctx).get(0).severity());
        ctx.write("/proc/meminfo", "MemTotal: 65536 kB\n");
        assertEquals(Severity.PASS, judge(physmem, new MemoryProbe(), ctx).get(0).severity());
    }
}
