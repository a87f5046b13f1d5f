package dev.nhc.checks.kernel;

import dev.nhc.checks.kernel.KernelLogLine.Origin;
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
        assertEquals(Origin.KERNEL, l.origin());
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
    void garbledLinesAreUnknownWithTheWholeLineAsMessage() {
        for (String s : new String[]{"garbage NVRM: Xid (PCI:0000:3b:00): 48, x", "[12.x] half", "2024-13-45T99:99:99 bad date",
                "Foo 12 10:00:00 host kernel: x", "[Sun Feb 31 16:24:18 2025] no such day",
                "2024-11-15T05:39:15.491363Z no tag at all", "Nov 15 05:39:15 nohostnorag"}) {
            KernelLogLine l = ts.parse(7, s);
            assertEquals(Origin.UNKNOWN, l.origin(), s);
            assertEquals(s, l.message());
            assertEquals(7, l.position());
        }
    }

    /** rsyslog's traditional file format: "host tag: msg"; only the tag kernel: is the kernel's (the tag logger gives a user's line is the user's name). */
    @Test
    void aSyslogLineIsTheKernelsOnlyWhenTaggedKernel() {
        KernelLogLine k = ts.parse(1, "Feb 27 05:39:15 gpu-001 kernel: NVRM: Xid (PCI:0000:3b:00): 79, x");
        assertEquals(Origin.KERNEL, k.origin());
        assertNull(k.uptimeSeconds(), "no kernel stamp kept: no place in the boot");
        for (String user : new String[]{"Feb 27 05:39:15 gpu-001 alice: NVRM: Xid (PCI:0000:3b:00): 79, x",
                "Feb 27 05:39:15 gpu-001 kernel[4242]: NVRM: Xid (PCI:0000:3b:00): 79, x",
                "Feb 27 05:39:15 gpu-001 kernelx: NVRM: Xid (PCI:0000:3b:00): 79, x",
                "2024-11-15T05:39:15.491363+00:00 gpu-001 alice: NVRM: Xid (PCI:0000:3b:00): 79, x",
                "2024-11-15T05:39:15.491363+00:00 gpu-001 systemd-networkd[812]: eth0: Lost carrier"}) {
            KernelLogLine l = ts.parse(1, user);
            assertEquals(Origin.OTHER, l.origin(), user);
        }
        assertEquals("eth0: Lost carrier", ts.parse(1, "Feb 27 05:39:15 gpu-001 systemd-networkd[812]: eth0: Lost carrier").message());
    }

    @Test
    void theKernelStampASyslogLineKeepsIsItsUptime() {
        KernelLogLine l = ts.parse(1, "2024-11-15T05:39:15.491363+00:00 gpu-001 kernel: [   42.500000] mlx5_core 0000:3b:00.0 ib0: Link down");
        assertEquals(Origin.KERNEL, l.origin());
        assertEquals(42.5, l.uptimeSeconds(), 1e-9);
        assertEquals("mlx5_core 0000:3b:00.0 ib0: Link down", l.message());
    }

    /** dmesg indents the further lines of a record (a line break in it, e.g. in a program's file name): they start no record. */
    @Test
    void anIndentedLineContinuesTheRecordBefore() {
        KernelLogLine l = ts.parse(2, "               NVRM: Xid (PCI:0000:3b:00): 79, pid=1, x[1139,5585f7e16000+1000] likely on CPU 1");
        assertEquals(Origin.CONTINUATION, l.origin());
        assertFalse(l.startsRecord());
        assertEquals("NVRM: Xid (PCI:0000:3b:00): 79, pid=1, x[1139,5585f7e16000+1000] likely on CPU 1", l.message());
    }

    @Test
    void dmesgDecodeSaysTheFacility() {
        assertEquals(Origin.KERNEL, ts.parse(1, "kern  :err   : [  797.028921] NVRM: Xid (PCI:0000:3b:00): 79, x").origin());
        KernelLogLine user = ts.parse(1, "user  :notice: [  797.028921] NVRM: Xid (PCI:0000:3b:00): 79, x");
        assertEquals(Origin.OTHER, user.origin());
        assertEquals(Origin.OTHER, ts.parse(1, "daemon:info  : 2025-01-21T04:41:44,283302+00:00 systemd[1]: x").origin());
    }

    /** A capture of dmesg --raw or of /dev/kmsg itself says the facility: only 0 is the kernel's. */
    @Test
    void rawDmesgAndKmsgRecordsSayTheFacility() {
        KernelLogLine raw = ts.parse(1, "<6>[  797.028921] NVRM: Xid (PCI:0000:3b:00): 79, x");
        assertEquals(Origin.KERNEL, raw.origin());
        assertEquals("NVRM: Xid (PCI:0000:3b:00): 79, x", raw.message());
        assertEquals(Origin.OTHER, ts.parse(1, "<14>[  797.028922] alice[4242]: NVRM: Xid (PCI:0000:3b:00): 79, x").origin());
        KernelLogLine kmsg = ts.parse(1, "6,338,797028921,-;NVRM: Xid (PCI:[26547]: segfault at 0 ip 00005585f7e16139");
        assertEquals(Origin.KERNEL, kmsg.origin());
        assertEquals(797.028921, kmsg.uptimeSeconds(), 1e-9);
        assertEquals("NVRM: Xid (PCI:[26547]: segfault at 0 ip 00005585f7e16139", kmsg.message());
        assertEquals(Origin.OTHER, ts.parse(1, "14,339,797028978,-,caller=T4242;alice: NVRM: Xid (PCI:0000:3b:00): 79, x").origin());
    }
}
