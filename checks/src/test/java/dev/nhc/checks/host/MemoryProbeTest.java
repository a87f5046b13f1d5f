package dev.nhc.checks.host;

import dev.nhc.engine.testing.TestProbeContext;
import dev.nhc.model.Entity;
import dev.nhc.model.Finding;
import dev.nhc.model.Observation;
import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.rules.testing.Pipeline;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MemoryProbeTest {
    private static final long GIB = 1024L * 1024 * 1024;
    private static final ProbeSpec SPEC = new MemoryProbe().spec();

    @TempDir
    Path root;

    /** A meminfo as a 2-socket node writes it, with MemTotal given in KiB. */
    private static String meminfo(long memTotalKib) {
        return "MemTotal:       " + memTotalKib + " kB\n"
                + "MemFree:        401234567 kB\n"
                + "MemAvailable:   489123456 kB\n"
                + "Buffers:          123456 kB\n"
                + "Cached:          9876543 kB\n"
                + "SwapCached:            0 kB\n"
                + "SwapTotal:       8388604 kB\n"
                + "SwapFree:        8388000 kB\n"
                + "HugePages_Total:      16\n"
                + "HugePages_Free:       12\n"
                + "HugePages_Rsvd:        0\n"
                + "HugePages_Surp:        0\n"
                + "Hugepagesize:       2048 kB\n"
                + "Hugetlb:           32768 kB\n";
    }

    private Observation observe(String meminfo, String with) throws Exception {
        TestProbeContext ctx = new TestProbeContext(root).with(SPEC, with);
        ctx.write("/proc/meminfo", meminfo);
        return new MemoryProbe().probe(ctx).observations().get(0);
    }

    /** The one finding of a memory check with this {@code with:}, judged as nhc run judges it. */
    private Finding judge(String meminfo, String with) throws Exception {
        new TestProbeContext(root).write("/proc/meminfo", meminfo);
        return Pipeline.only(new Pipeline(root, new MemoryProbe()).run("- { name: mem, use: memory, with: " + with + " }"), "mem");
    }

    @Test
    void reportsEveryFieldInBytes() throws Exception {
        Observation o = observe(meminfo(527_000_000L), "{ }");
        assertEquals(Entity.NODE, o.entity());
        assertEquals(527_000_000L * 1024, o.get("total"));
        assertEquals(489_123_456L * 1024, o.get("available"));
        assertEquals(401_234_567L * 1024, o.get("free"));
        assertEquals(8_388_604L * 1024, o.get("swap_total"));
        assertEquals(8_388_000L * 1024, o.get("swap_free"));
        assertEquals(16L * 2048 * 1024, o.get("hugepages_total"));
        assertEquals(12L * 2048 * 1024, o.get("hugepages_free"));
        assertEquals((401_234_567L + 123_456L + 9_876_543L) * 1024, o.get("free_with_cache"), "LBNL NHC's free RAM");
        assertEquals((527_000_000L + 8_388_604L) * 1024, o.get("total_with_swap"));
        assertEquals((401_234_567L + 123_456L + 9_876_543L + 8_388_000L) * 1024, o.get("free_with_cache_and_swap"));
        assertFalse(o.fields().containsKey("total_deviation_percent"), "no 'total', nothing to compare: " + o);
        assertEquals(Severity.PASS, judge(meminfo(527_000_000L), "{ }").severity());
    }

    @Test
    void observesHowFarMemTotalIsFromTheExpectedSize() throws Exception {
        Observation o = observe(meminfo(480 * GIB / 1024), "{ total: 512GiB }");
        assertEquals(512 * GIB, o.get("expected_total"));
        assertEquals(-6.25, o.get("total_deviation_percent"));
        assertEquals(100.0, observe(meminfo(1024 * GIB / 1024), "{ total: 512GiB }").get("total_deviation_percent"));
    }

    @Test
    void lessThanExpectedBeyondTheToleranceFailsAsLostHardware() throws Exception {
        Finding f = judge(meminfo(480 * GIB / 1024), "{ total: 512GiB, tolerance: 5% }");
        assertEquals(Severity.FAIL, f.severity());
        assertEquals("memory 480.0 GiB, expected 512.0 GiB ± 5%", f.message());
        assertEquals(Remedy.HARDWARE, f.remedy());
        assertEquals(Entity.NODE, f.entity());
    }

    @Test
    void whatTheKernelKeepsIsWithinTheDefaultTolerance() throws Exception {
        long kib = Math.round(503.2 * GIB / 1024);
        assertEquals(Severity.PASS, judge(meminfo(kib), "{ total: 512GiB }").severity());
        Finding f = judge(meminfo(kib), "{ total: 512GiB, tolerance: 1% }");
        assertEquals(Severity.FAIL, f.severity());
        assertEquals("memory 503.2 GiB, expected 512.0 GiB ± 1%", f.message());
    }

    @Test
    void theBoundsAreTheTolerance() throws Exception {
        // 95 % of 100 GiB is inside 5 %; one KiB less is not. 105 % likewise on the other side.
        long expectedKib = 100 * GIB / 1024;
        assertEquals(Severity.PASS, judge(meminfo(expectedKib * 95 / 100), "{ total: 100GiB }").severity());
        assertEquals(Severity.FAIL, judge(meminfo(expectedKib * 95 / 100 - 1), "{ total: 100GiB }").severity());
        assertEquals(Severity.PASS, judge(meminfo(expectedKib * 105 / 100), "{ total: 100GiB }").severity());
        assertEquals(Severity.WARN, judge(meminfo(expectedKib * 105 / 100 + 1), "{ total: 100GiB }").severity());
    }

    @Test
    void moreThanExpectedWarnsThatTheConfigDoesNotFit() throws Exception {
        Finding f = judge(meminfo(1024 * GIB / 1024), "{ total: 512GiB, tolerance: 2.5% }");
        assertEquals(Severity.WARN, f.severity());
        assertEquals("memory 1.0 TiB, expected 512.0 GiB ± 2.5%", f.message());
        assertEquals(Remedy.NONE, f.remedy());
    }

    @Test
    void aConfigsWarnReplacesTheDefaultAndWarnNoneDropsIt() throws Exception {
        new TestProbeContext(root).write("/proc/meminfo", meminfo(1024 * GIB / 1024));
        Pipeline p = new Pipeline(root, new MemoryProbe());
        assertEquals(Severity.PASS, Pipeline.severity(p.run("- { name: mem, use: memory, with: { total: 512GiB }, warn: none }"), "mem"));
        Finding own = Pipeline.only(p.run("- { name: mem, use: memory, with: { total: 512GiB }, warn: { swap_free: \"< 16GiB\" } }"), "mem");
        assertEquals(Severity.WARN, own.severity());
        assertEquals("swap_free 8.0 GiB < 16.0 GiB", own.message());
        // A fail: of its own replaces the lost-DIMM rule, with its own threshold on the same field.
        new TestProbeContext(root).write("/proc/meminfo", meminfo(480 * GIB / 1024));
        String tighter = "- { name: mem, use: memory, with: { total: 512GiB }, fail: { total_deviation_percent: \"< -10\" } }";
        assertEquals(Severity.PASS, Pipeline.severity(p.run(tighter), "mem"));
    }

    @Test
    void anOldKernelWithoutMemAvailableLeavesThatFieldAbsent() throws Exception {
        String old = meminfo(16 * GIB / 1024).replaceAll("MemAvailable:.*\n", "").replaceAll("Huge.*\n", "");
        Observation o = observe(old, "{ }");
        assertFalse(o.fields().containsKey("available"));
        assertFalse(o.fields().containsKey("hugepages_total"));
        assertEquals(16 * GIB, o.get("total"));
    }

    @Test
    void aMissingMeminfoIsAnErrorNamingThePath() {
        TestProbeContext ctx = new TestProbeContext(root).with(SPEC, "{ }");
        IOException e = assertThrows(IOException.class, () -> new MemoryProbe().probe(ctx));
        assertEquals(root.resolve("proc/meminfo") + ": No such file or directory", e.getMessage());
    }

    @Test
    void aMeminfoWithoutMemTotalIsAnError() {
        IOException e = assertThrows(IOException.class, () -> observe("MemFree: 12 kB\n", "{ }"));
        assertTrue(e.getMessage().endsWith("proc/meminfo: no MemTotal line"), e.getMessage());
    }

    @Test
    void aBadTotalOrToleranceIsAConfigError() {
        Pipeline p = new Pipeline(root, new MemoryProbe());
        assertTrue(ConfigErrors.at(p, "- { name: m, use: memory, with: { total: 0GiB } }", "0GiB").endsWith("must be more than 0 bytes"));
        assertTrue(ConfigErrors.at(p, "- { name: m, use: memory, with: { total: 512GiB, tolerance: 150% } }", "150%")
                .contains("must be less than 100%"));
        assertTrue(ConfigErrors.at(p, "- { name: m, use: memory, with: { total: 512GiB, tolerance: 5GiB } }", "5GiB")
                .contains("must be a percentage"));
    }
}
