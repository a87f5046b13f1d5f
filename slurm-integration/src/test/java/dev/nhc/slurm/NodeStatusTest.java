package dev.nhc.slurm;

import org.junit.jupiter.api.Test;

import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class NodeStatusTest {
    /** As Slurm 22.05.8's {@code scontrol show node -o} printed it on a test cluster (trimmed in the middle). */
    private static final String DRAINED = "NodeName=vm Arch=x86_64 CoresPerSocket=2  CPUAlloc=0 CPUEfctv=2 CPUTot=2 CPULoad=1.45 "
            + "NodeAddr=127.0.0.1 NodeHostName=vm Version=22.05.8 RealMemory=1000 AllocMem=0 FreeMem=22861 Sockets=1 Boards=1 "
            + "State=IDLE+DRAIN ThreadsPerCore=1 TmpDisk=0 Weight=1 Owner=N/A MCS_label=N/A Partitions=debug  "
            + "CfgTRES=cpu=2,mem=1000M,billing=2 AllocTRES= CapWatts=n/a ExtSensorsTemp=n/s "
            + "Reason=NHC: disk: used 97% of / \"x [root@2026-11-22T04:05:06]";

    @Test
    void readsStateFlagsAndReasonWithoutSlurmsStamp() {
        NodeStatus s = NodeStatus.parse(DRAINED);
        assertNotNull(s);
        assertEquals("vm", s.name());
        assertEquals("IDLE", s.base());
        assertEquals(Set.of("DRAIN"), s.flags());
        assertEquals("NHC: disk: used 97% of / \"x", s.reason());
        assertTrue(s.drained() && s.held() && s.reasonIsNhc());
        assertNull(s.leaveAloneBecause());
    }

    /** One definition with Reasons: an admin's reason that starts "NHC:" but is not in nhc's shape is not nhc's. */
    @Test
    void onlyAReasonOfNhcsShapeIsNhcs() {
        assertFalse(NodeStatus.parse("NodeName=vm State=IDLE+DRAIN Reason=NHC: keep this one out [root@2026-11-22T04:05:06]").reasonIsNhc());
        assertFalse(NodeStatus.parse("NodeName=vm State=IDLE+DRAIN Reason=NHC:disk: x [root@2026-11-22T04:05:06]").reasonIsNhc());
        assertTrue(NodeStatus.parse("NodeName=vm State=IDLE+DRAIN Reason=NHC: other-sites-check: x [root@2026-11-22T04:05:06]").reasonIsNhc(),
                "another config's check names count for the circuit breaker");
    }

    @Test
    void anIdleNodeHasNoReason() {
        NodeStatus s = NodeStatus.parse("NodeName=vm Arch=x86_64 State=IDLE ThreadsPerCore=1 Partitions=debug");
        assertEquals("", s.reason());
        assertFalse(s.held());
    }

    @Test
    void theNotRespondingStarBecomesAFlag() {
        NodeStatus s = NodeStatus.parse("NodeName=n1 State=DOWN*+DRAIN Reason=Not responding [slurm@2026-11-22T04:05:06]");
        assertEquals("DOWN", s.base());
        assertEquals(Set.of("NOT_RESPONDING", "DRAIN"), s.flags());
        assertEquals("Not responding", s.reason());
        assertNotNull(s.leaveAloneBecause());
    }

    @Test
    void everyStateOwnedElsewhereHasAReasonToBeLeftAlone() {
        for (String state : new String[] {"IDLE+REBOOT_REQUESTED", "IDLE+REBOOT_ISSUED", "IDLE+POWERING_UP", "IDLE+POWERED_DOWN",
                "IDLE+POWERING_DOWN", "IDLE+POWER_DOWN", "IDLE+MAINTENANCE+RESERVED", "DOWN*", "FUTURE"}) {
            NodeStatus s = NodeStatus.parse("NodeName=n1 State=" + state);
            assertNotNull(s.leaveAloneBecause(), state);
        }
        for (String state : new String[] {"IDLE", "MIXED+DRAIN", "ALLOCATED+FAIL", "IDLE*", "DOWN", "IDLE+COMPLETING", "IDLE+PLANNED"}) {
            assertNull(NodeStatus.parse("NodeName=n1 State=" + state).leaveAloneBecause(), state);
        }
    }

    @Test
    void aLineWithoutNodeOrStateIsNotANode() {
        assertNull(NodeStatus.parse(""));
        assertNull(NodeStatus.parse("No nodes in the system"));
    }
}
