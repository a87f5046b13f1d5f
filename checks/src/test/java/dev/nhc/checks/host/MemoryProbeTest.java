package dev.nhc.checks.host;

import dev.nhc.model.Finding;
import dev.nhc.model.Observation;
import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;
import dev.nhc.probe.ProbeResult;
import dev.nhc.engine.testing.TestProbeContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MemoryProbeTest {
    private static final long GIB = 1024L * 1024 * 1024;

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

    private ProbeResult run(String meminfo, Map<String, Object> with) throws Exception {
        TestProbeContext ctx = new TestProbeContext(root).params(with);
        ctx.write("/proc/meminfo", meminfo);
        return new MemoryProbe().probe(ctx);
    }

    @Test
    void reportsEveryFieldInBytes() throws Exception {
        ProbeResult r = run(meminfo(527_000_000L), Map.of("tolerance", 5.0));
        assertEquals(List.of(), r.findings());
        Observation o = r.observations().get(0);
        assertEquals("node", o.entity());
        assertEquals(527_000_000L * 1024, o.get("total"));
        assertEquals(489_123_456L * 1024, o.get("available"));
        assertEquals(401_234_567L * 1024, o.get("free"));
        assertEquals(8_388_604L * 1024, o.get("swap_total"));
        assertEquals(8_388_000L * 1024, o.get("swap_free"));
        assertEquals(16L * 2048 * 1024, o.get("hugepages_total"));
        assertEquals(12L * 2048 * 1024, o.get("hugepages_free"));
    }

    @Test
    void lessThanExpectedBeyondTheToleranceFailsAsLostHardware() throws Exception {
        ProbeResult r = run(meminfo(480 * GIB / 1024), Map.of("total", 512 * GIB, "tolerance", 5.0));
        Finding f = r.findings().get(0);
        assertEquals(Severity.FAIL, f.severity());
        assertEquals("memory 480 GiB, expected 512 GiB ± 5%", f.message());
        assertEquals(Remedy.HARDWARE, f.remedy());
    }

    @Test
    void whatTheKernelKeepsIsWithinTheDefaultTolerance() throws Exception {
        long kib = Math.round(503.2 * GIB / 1024);
        assertEquals(List.of(), run(meminfo(kib), Map.of("total", 512 * GIB, "tolerance", 5.0)).findings());
        Finding f = run(meminfo(kib), Map.of("total", 512 * GIB, "tolerance", 1.0)).findings().get(0);
        assertEquals("memory 503.2 GiB, expected 512 GiB ± 1%", f.message());
    }

    @Test
    void moreThanExpectedWarnsThatTheConfigDoesNotFit() throws Exception {
        Finding f = run(meminfo(1024 * GIB / 1024), Map.of("total", 512 * GIB, "tolerance", 2.5)).findings().get(0);
        assertEquals(Severity.WARN, f.severity());
        assertEquals("memory 1 TiB, expected 512 GiB ± 2.5%", f.message());
    }

    @Test
    void anOldKernelWithoutMemAvailableLeavesThatFieldAbsent() throws Exception {
        String old = meminfo(16 * GIB / 1024).replaceAll("MemAvailable:.*\n", "").replaceAll("Huge.*\n", "");
        Observation o = run(old, Map.of("tolerance", 5.0)).observations().get(0);
        assertFalse(o.fields().containsKey("available"));
        assertFalse(o.fields().containsKey("hugepages_total"));
        assertEquals(16 * GIB, o.get("total"));
    }

    @Test
    void aMissingMeminfoIsAnErrorNamingThePath() {
        TestProbeContext ctx = new TestProbeContext(root).params(Map.of("tolerance", 5.0));
        IOException e = assertThrows(IOException.class, () -> new MemoryProbe().probe(ctx));
        assertEquals(root.resolve("proc/meminfo") + ": No such file or directory", e.getMessage());
    }

    @Test
    void aMeminfoWithoutMemTotalIsAnError() {
        IOException e = assertThrows(IOException.class, () -> run("MemFree: 12 kB\n", Map.of("tolerance", 5.0)));
        assertTrue(e.getMessage().endsWith("proc/meminfo: no MemTotal line"), e.getMessage());
    }
}
