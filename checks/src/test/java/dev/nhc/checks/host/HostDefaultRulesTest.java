package dev.nhc.checks.host;

import dev.nhc.engine.plan.ConfigLoader;
import dev.nhc.engine.plan.Plan;
import dev.nhc.engine.plan.PlannedCheck;
import dev.nhc.engine.plan.ProbeRegistry;
import dev.nhc.engine.testing.TestProbeContext;
import dev.nhc.model.CheckResult;
import dev.nhc.model.CheckStatus;
import dev.nhc.model.Entity;
import dev.nhc.model.Finding;
import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;
import dev.nhc.model.Verdict;
import dev.nhc.rules.RuleEngine;
import dev.nhc.rules.testing.Pipeline;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** disk.usage's and load's default rules, and configs over host fields, judged as nhc run judges them. */
class HostDefaultRulesTest {
    private static final Path BENCH = Path.of(System.getProperty("user.dir")).resolve("../bench/configs/host-basic.yaml").normalize();
    private static final String DATA = "- { name: data, use: disk.usage, with: { mount: /data } }";

    @TempDir
    Path root;

    /** /data mounted, 1000 blocks of 4 KiB with {@code avail} available, 1000 inodes with {@code ifree} free. */
    private Pipeline disk(long avail, long ifree) throws Exception {
        new TestProbeContext(root).write("/proc/self/mounts", "/dev/vdb /data xfs rw 0 0\n");
        return new Pipeline(root, new DiskUsageProbe((p, inodes) -> new Statvfs.Result(4096, 4096, 1000, avail, avail, 1000, ifree, ifree, 0, 0, 255)));
    }

    @Test
    void diskUsageDefaultsWarnAbove90AndFailAbove98Percent() throws Exception {
        Finding pass = Pipeline.only(disk(200, 500).run(DATA), "data");
        assertEquals(Severity.PASS, pass.severity(), pass.message());
        assertEquals(Entity.of(Entity.Kind.MOUNT, "/data"), pass.entity());

        Finding warn = Pipeline.only(disk(50, 500).run(DATA), "data");
        assertEquals(Severity.WARN, warn.severity());
        assertEquals("/data is 95% full (200.0 KiB free)", warn.message());

        Finding fail = Pipeline.only(disk(10, 500).run(DATA), "data");
        assertEquals(Severity.FAIL, fail.severity());
        assertEquals("/data is 99% full (40.0 KiB free)", fail.message());
        assertEquals("data", fail.check());
        assertEquals(99.0, fail.observed().get("used_percent"));
    }

    @Test
    void inodesHaveTheirOwnDefaults() throws Exception {
        Finding fail = Pipeline.only(disk(500, 5).run(DATA), "data");
        assertEquals(Severity.FAIL, fail.severity());
        assertEquals("/data has used 99.5% of its inodes (5 left)", fail.message());
        Finding warn = Pipeline.only(disk(500, 50).run(DATA), "data");
        assertEquals(Severity.WARN, warn.severity());
        assertEquals("/data has used 95% of its inodes (50 left)", warn.message());
    }

    @Test
    void aConfigsFailReplacesTheDefaultFailButKeepsTheWarn() throws Exception {
        String check = "- { name: data, use: disk.usage, with: { mount: /data }, fail: { used_percent: \"> 99\" } }";
        assertEquals(Severity.WARN, Pipeline.severity(disk(10, 500).run(check), "data"));
        assertEquals(Severity.FAIL, Pipeline.severity(disk(5, 500).run(check), "data"));
        // The inode FAIL default went with it: an inode table at 99.5 % now only warns.
        assertEquals(Severity.WARN, Pipeline.severity(disk(500, 5).run(check), "data"));
    }

    @Test
    void warnNoneDropsTheDefaultWarnings() throws Exception {
        String check = "- { name: data, use: disk.usage, with: { mount: /data }, warn: none }";
        Finding f = Pipeline.only(disk(50, 50).run(check), "data");
        assertEquals(Severity.PASS, f.severity(), f.message());
        assertEquals(Severity.FAIL, Pipeline.severity(disk(10, 500).run(check), "data"));
    }

    @Test
    void anUnmountedFilesystemFails() throws Exception {
        Finding f = Pipeline.only(disk(500, 500).run("- { name: scratch, use: disk.usage, with: { mount: /scratch } }"), "scratch");
        assertEquals(Severity.FAIL, f.severity());
        assertEquals("/scratch is not mounted", f.message());
        assertEquals(Entity.of(Entity.Kind.MOUNT, "/scratch"), f.entity());
        assertEquals("scratch", f.check());
        assertEquals(Remedy.NONE, f.remedy());
    }

    @Test
    void aConfigsOwnFailStillDoesNotPassAnUnmountedFilesystem() throws Exception {
        String check = "- { name: scratch, use: disk.usage, with: { mount: /scratch }, fail: { used_percent: \"> 99\" } }";
        Finding f = Pipeline.only(disk(500, 500).run(check), "scratch");
        assertEquals(Severity.UNKNOWN, f.severity());
        assertEquals("/scratch is not mounted", f.message());
        // Naming the field in its own fail: makes it a failure again.
        String own = "- { name: scratch, use: disk.usage, with: { mount: /scratch }, fail: [ { used_percent: \"> 99\" }, { mounted: false } ] }";
        assertEquals(Severity.FAIL, Pipeline.severity(disk(500, 500).run(own), "scratch"));
    }

    @Test
    void aFilesystemThatCannotBeMeasuredIsUnknownWithTheReason() throws Exception {
        new TestProbeContext(root).write("/proc/self/mounts", "/dev/vdb /data xfs rw 0 0\n");
        Pipeline p = new Pipeline(root, new DiskUsageProbe((path, inodes) -> {
            throw new java.io.IOException("statvfs " + path + ": Input/output error (errno 5)");
        }));
        Finding f = Pipeline.only(p.run(DATA), "data");
        assertEquals(Severity.UNKNOWN, f.severity());
        assertEquals("statvfs " + root.resolve("data") + ": Input/output error (errno 5)", f.message(), "measured under the system root");
        assertEquals(Entity.of(Entity.Kind.MOUNT, "/data"), f.entity());
    }

    @Test
    void loadWarnsAboveFourPerCpuByDefault() throws Exception {
        Pipeline p = new Pipeline(root, new LoadProbe());
        TestProbeContext files = new TestProbeContext(root);
        files.write("/proc/loadavg", "530.12 410.50 300.01 7/2345 99812\n");
        files.write("/sys/devices/system/cpu/online", "0-127\n");
        Finding f = Pipeline.only(p.run("- { name: loadavg, use: load }"), "loadavg");
        assertEquals(Severity.WARN, f.severity());
        assertEquals("load 530.1 is 4.14 per CPU", f.message());
        assertEquals(Entity.NODE, f.entity());

        files.write("/proc/loadavg", "130.00 110.50 100.01 7/2345 99812\n");
        assertEquals(Severity.PASS, Pipeline.severity(p.run("- { name: loadavg, use: load }"), "loadavg"));
    }

    @Test
    void memoryRulesTakeSizesWithUnits() throws Exception {
        new TestProbeContext(root)
                .write("/proc/meminfo", "MemTotal: 16777216 kB\nMemFree: 1000000 kB\nMemAvailable: 3000000 kB\nSwapTotal: 0 kB\nSwapFree: 0 kB\n");
        Verdict v = new Pipeline(root, new MemoryProbe()).run("- { name: mem, use: memory, fail: { available: \"< 4GiB\" } }");
        Finding f = Pipeline.only(v, "mem");
        assertEquals(Severity.FAIL, f.severity());
        assertEquals("available 2.9 GiB < 4.0 GiB", f.message());
    }

    /** The bench's checks, to run through the Pipeline (which writes its own settings). */
    private static String benchChecks() throws Exception {
        String yaml = Files.readString(BENCH);
        return yaml.substring(yaml.indexOf("\nchecks:\n") + "\nchecks:\n".length()).stripTrailing().stripIndent();
    }

    @Test
    void theBenchConfigIsValidAndJudgesThisNode() throws Exception {
        Plan plan = new ConfigLoader(ProbeRegistry.load(), new RuleEngine(), List.of()).enforceOwnership(false)
                .parse(BENCH.toString(), Files.readString(BENCH), BENCH);
        assertEquals(List.of("root-mount", "root-free", "physmem", "load"), plan.checks().stream().map(PlannedCheck::name).toList());

        // This node's own /proc and /sys under the pipeline's root; statvfs measures the real /.
        Files.createSymbolicLink(root.resolve("proc"), Path.of("/proc"));
        Files.createSymbolicLink(root.resolve("sys"), Path.of("/sys"));
        Verdict v = new Pipeline(root, new DiskMountProbe(), new DiskUsageProbe(), new MemoryProbe(), new LoadProbe()).run(benchChecks());
        for (CheckResult c : v.checks()) {
            // Whether this machine passes is its own business (a container may have a read-only /);
            // what must hold is that every check could read it and came to a verdict.
            assertEquals(CheckStatus.COMPLETED, c.status(), c.toString());
            assertEquals(1, c.findings().size(), c.toString());
            assertNotEquals(Severity.UNKNOWN, c.severity(), c.name() + ": " + c.findings());
        }
        assertEquals(Severity.PASS, Pipeline.severity(v, "physmem"), v.toString());
    }

    @Test
    void theBenchConfigsMemoryBoundsFailOutsideTheRange() throws Exception {
        TestProbeContext files = new TestProbeContext(root);
        Pipeline p = new Pipeline(root, new DiskMountProbe(), new DiskUsageProbe(), new MemoryProbe(), new LoadProbe());
        files.write("/proc/meminfo", "MemTotal: 11811160064 kB\n");
        assertEquals(Severity.FAIL, Pipeline.severity(p.run(benchChecks()), "physmem"));
        files.write("/proc/meminfo", "MemTotal: 0 kB\n");
        assertEquals(Severity.FAIL, Pipeline.severity(p.run(benchChecks()), "physmem"));
        files.write("/proc/meminfo", "MemTotal: 65536 kB\n");
        Finding pass = Pipeline.only(p.run(benchChecks()), "physmem");
        assertEquals(Severity.PASS, pass.severity(), pass.message());
        assertNull(pass.slurmState());
    }

    @Test
    void theBenchConfigsRootMountFailsWhenRootIsReadOnly() throws Exception {
        new TestProbeContext(root).write("/proc/self/mounts", "/dev/vda / ext4 ro,relatime 0 0\n");
        Verdict v = new Pipeline(root, new DiskMountProbe(), new DiskUsageProbe(), new MemoryProbe(), new LoadProbe()).run(benchChecks());
        Finding f = Pipeline.only(v, "root-mount");
        assertEquals(Severity.FAIL, f.severity());
        assertEquals("/ is mounted read-only (expected rw)", f.message());
        assertTrue(f.observed().containsKey("options_missing"), f.observed().toString());
    }
}
