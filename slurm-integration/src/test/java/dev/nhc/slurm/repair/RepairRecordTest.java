package dev.nhc.slurm.repair;

import dev.nhc.engine.state.StateSection;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The ladder's keys in nhc's Slurm record: what it writes reads back, and every value it never writes is named. */
class RepairRecordTest {
    private static final String BOOT = "0b5f7c7e-2f4c-4f7e-9d0a-3b1c2d3e4f50";
    private final Instant t = Instant.parse("2026-11-22T04:00:00Z");

    @Test
    void whatTheLadderWritesReadsBackClean() {
        StateSection s = StateSection.detached("slurm");
        RepairRecord r = new RepairRecord(s);
        r.rebootRequested(Set.of("xid: GPU 1"), BOOT, t);
        assertEquals(List.of(), RepairRecord.problems(s));
        r.rebootSeen(t.plusSeconds(600));
        r.failed(Set.of("xid: GPU 1"), t.plusSeconds(900));
        r.cancelled(BOOT);
        r.lost(t);
        assertEquals(List.of(), RepairRecord.problems(s));
        assertEquals(RepairRecord.Rung.FAILED, r.rung());
        assertEquals(1, r.rebootsFor(Set.of("xid: GPU 1"), t.plusSeconds(1000), Duration.ofDays(7)));
        assertEquals(0, r.rebootsFor(Set.of("xid: GPU 2"), t.plusSeconds(1000), Duration.ofDays(7)), "another part");
    }

    @Test
    void everyValueNhcNeverWritesIsNamed() {
        StateSection s = StateSection.detached("slurm");
        s.put("repair_rung", "exploding");
        s.put("repair_faults", List.of(7));
        s.put("repair_boot_id", "$(reboot)");
        s.put("repair_since", "yesterday");
        s.put("repair_reboots", List.of(Map.of("at", "2026-11-22T04:00:00Z", "faults", List.of("xid: GPU 1"), "extra", 1)));
        assertEquals(List.of("repair_rung 'exploding' is not rebooting, rebooted or failed", "repair_faults is not a list of faults",
                "repair_boot_id '$(reboot)' is not a boot id", "repair_since 'yesterday' is not a time",
                "repair_reboots is not a list of reboots, each with a time and its faults"), RepairRecord.problems(s));
    }

    @Test
    void aRungComesWithWhatItIsFor() {
        StateSection s = StateSection.detached("slurm");
        s.put("repair_rung", "rebooting");
        assertEquals(List.of("repair_rung comes only with repair_since and repair_faults",
                "a rebooting rung comes only with the boot id it waits to see change"), RepairRecord.problems(s));
    }

    @Test
    void theWindowDropsOldReboots() {
        StateSection s = StateSection.detached("slurm");
        RepairRecord r = new RepairRecord(s);
        r.rebootRequested(Set.of("xid: GPU 1"), BOOT, t);
        r.rebootRequested(Set.of("xid: GPU 1"), BOOT, t.plus(Duration.ofDays(3)));
        r.expire(t.plus(Duration.ofDays(8)), Duration.ofDays(7));
        assertEquals(1, r.reboots().size());
        r.expire(t.plus(Duration.ofDays(11)), Duration.ofDays(7));
        assertEquals(List.of(), r.reboots());
        assertEquals(null, s.get("repair_reboots"));
    }
}
