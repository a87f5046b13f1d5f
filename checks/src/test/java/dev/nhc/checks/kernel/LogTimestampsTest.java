package dev.nhc.checks.kernel;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.time.ZoneOffset;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LogTimestampsTest {
    private final LogTimestamps ts = new LogTimestamps(ZoneOffset.UTC, Instant.parse("2026-03-01T00:00:00Z"));

    @Test
    void dmesgUptime() {
        KernelLogLine l = ts.parse(1, "[171167.620236] NVRM: Xid (PCI:0009:01:00): 149, x");
        assertTrue(l.timestampParsed());
        assertEquals(171167.620236, l.uptimeSeconds(), 1e-9);
        assertNull(l.time());
        assertEquals("NVRM: Xid (PCI:0009:01:00): 149, x", l.message());
        assertEquals(5.5, ts.parse(1, "[    5.500000] early").uptimeSeconds(), 1e-9);
    }

    @Test
    void dmesgHumanTime() {
        KernelLogLine l = ts.parse(1, "[Sun Feb 23 16:24:18 2025] NVRM: GPU at PCI:0000:9b:00: x");
        assertEquals(Instant.parse("2025-02-23T16:24:18Z"), l.time());
        assertEquals("NVRM: GPU at PCI:0000:9b:00: x", l.message());
        assertEquals(Instant.parse("2025-02-03T01:02:03Z"), ts.parse(1, "[Mon Feb  3 01:02:03 2025] y").time());
    }

    @Test
    void isoWithCommaFractionAndColonOffset() {
        KernelLogLine l = ts.parse(1, "2024-11-15T05:39:15,491363+00:00 nvidia-peermem error");
        assertEquals(Instant.parse("2024-11-15T05:39:15.491363Z"), l.time());
        assertEquals("nvidia-peermem error", l.message());
    }

    @Test
    void rfc3339WithZoneLetterOrCompactOffsetAndHostKernelPrefix() {
        KernelLogLine z = ts.parse(1, "2024-11-15T05:39:15.491363Z gpu-001 kernel: EXT4-fs error");
        assertEquals(Instant.parse("2024-11-15T05:39:15.491363Z"), z.time());
        assertEquals("EXT4-fs error", z.message());
        KernelLogLine j = ts.parse(1, "2024-11-15T07:39:15.000001+0200 gpu-001 kernel: msg");
        assertEquals(Instant.parse("2024-11-15T05:39:15.000001Z"), j.time());
        assertEquals("msg", j.message());
    }

    @Test
    void syslogPicksTheYearThatIsNotInTheFuture() {
        KernelLogLine l = ts.parse(1, "Feb 27 05:39:15 gpu-001 kernel: [ 12.345678] NVRM: Xid (PCI:0000:3b:00): 79, x");
        assertEquals(Instant.parse("2026-02-27T05:39:15Z"), l.time());
        assertEquals("NVRM: Xid (PCI:0000:3b:00): 79, x", l.message());
        assertEquals(Instant.parse("2025-12-31T23:59:59Z"), ts.parse(1, "Dec 31 23:59:59 h kernel: x").time());
    }

    @Test
    void dmesgDecodePrefix() {
        KernelLogLine l = ts.parse(1, "kern  :warn  : 2025-01-21T04:41:44,283302+00:00 Out of memory: Killed process 123");
        assertEquals(Instant.parse("2025-01-21T04:41:44.283302Z"), l.time());
        assertEquals("Out of memory: Killed process 123", l.message());
    }

    @Test
    void garbledLinesAreUnparsedWithTheWholeLineAsMessage() {
        for (String s : new String[]{"garbage NVRM: Xid (PCI:0000:3b:00): 48, x", "[12.x] half", "2024-13-45T99:99:99 bad date",
                "Foo 12 10:00:00 host kernel: x", "[Sun Feb 31 16:24:18 2025] no such day"}) {
            KernelLogLine l = ts.parse(7, s);
            assertFalse(l.timestampParsed(), s);
            assertEquals(s, l.message());
            assertEquals(7, l.position());
        }
    }
}
