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
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CpuProbeTest {
    private static final Map<String, Object> EXPECT_256 = Map.of("sockets", 2L, "cores", 128L, "threads", 256L);

    @TempDir
    Path root;

    private ProbeResult run(SysfsCpuTree tree, BitSet online, Map<String, Object> with) throws Exception {
        TestProbeContext ctx = new TestProbeContext(root).params(with);
        tree.write(ctx, online);
        return new CpuProbe().probe(ctx);
    }

    @Test
    void countsA256ThreadNode() throws Exception {
        SysfsCpuTree tree = new SysfsCpuTree(2, 64, 2);
        ProbeResult r = run(tree, tree.all(), EXPECT_256);
        assertEquals(List.of(), r.findings());
        Observation o = r.observations().get(0);
        assertEquals("node", o.entity());
        assertEquals(2L, o.get("sockets"));
        assertEquals(128L, o.get("cores"));
        assertEquals(256L, o.get("threads"));
        assertEquals("0-255", o.get("online"));
        assertEquals(0L, o.get("offline"));
        assertEquals(true, o.get("smt_active"));
        assertEquals("on", o.get("smt_control"));
    }

    @Test
    void smtSwitchedOffFailsTheThreadCount() throws Exception {
        SysfsCpuTree tree = new SysfsCpuTree(2, 64, 2);
        BitSet firstThreads = new BitSet();
        firstThreads.set(0, 128);
        ProbeResult r = run(tree, firstThreads, EXPECT_256);
        Observation o = r.observations().get(0);
        assertEquals(128L, o.get("cores"));
        assertEquals(128L, o.get("threads"));
        assertEquals(128L, o.get("offline"));
        Finding f = r.findings().get(0);
        assertEquals(Severity.FAIL, f.severity());
        assertEquals("128 threads, expected 256 (online: 0-127; SMT is off; 128 offline)", f.message());
        assertEquals("off", o.get("smt_control"));
        assertEquals(Remedy.NONE, f.remedy());
    }

    @Test
    void oneCpuOfflineFails() throws Exception {
        SysfsCpuTree tree = new SysfsCpuTree(2, 8, 2);
        BitSet online = tree.all();
        online.clear(5);
        ProbeResult r = run(tree, online, Map.of("sockets", 2L, "cores", 16L, "threads", 32L));
        assertEquals("31 threads, expected 32 (online: 0-4,6-31; 1 offline)", r.findings().get(0).message());
        // CPU 5's sibling 21 keeps its core counted.
        assertEquals(16L, r.observations().get(0).get("cores"));
    }

    @Test
    void aLostSocketPointsAtHardware() throws Exception {
        SysfsCpuTree tree = new SysfsCpuTree(1, 8, 2);
        Finding f = run(tree, tree.all(), Map.of("sockets", 2L, "cores", 16L, "threads", 32L)).findings().get(0);
        assertEquals("1 socket, expected 2; 8 cores, expected 16; 16 threads, expected 32 (online: 0-15)", f.message());
        assertEquals(Remedy.HARDWARE, f.remedy());
    }

    @Test
    void moreThanExpectedWarns() throws Exception {
        SysfsCpuTree tree = new SysfsCpuTree(2, 4, 2);
        Finding f = run(tree, tree.all(), Map.of("threads", 8L)).findings().get(0);
        assertEquals(Severity.WARN, f.severity());
        assertEquals("16 threads, expected 8 (online: 0-15)", f.message());
    }

    @Test
    void readsTheSiblingListsOfOlderKernels() throws Exception {
        SysfsCpuTree tree = new SysfsCpuTree(4, 8, 1).olderKernelNames();
        Observation o = run(tree, tree.all(), Map.of()).observations().get(0);
        assertEquals(4L, o.get("sockets"));
        assertEquals(32L, o.get("cores"));
        assertEquals(32L, o.get("threads"));
        assertEquals(false, o.get("smt_active"));
        assertEquals("notsupported", o.get("smt_control"));
    }

    @Test
    void withoutSmtHardwareTheMessageDoesNotBlameSmt() throws Exception {
        SysfsCpuTree tree = new SysfsCpuTree(1, 2, 1);
        Finding f = run(tree, tree.all(), Map.of("threads", 4L)).findings().get(0);
        assertEquals("2 threads, expected 4 (online: 0-1)", f.message());
    }

    @Test
    void withoutTopologyOnlyThreadsAreKnownAndExpectedCoresAreUnknown() throws Exception {
        SysfsCpuTree tree = new SysfsCpuTree(1, 4, 2).withoutTopology();
        ProbeResult r = run(tree, tree.all(), Map.of("cores", 4L, "threads", 8L));
        Observation o = r.observations().get(0);
        assertFalse(o.fields().containsKey("cores"));
        assertFalse(o.fields().containsKey("sockets"));
        assertEquals(8L, o.get("threads"));
        Finding f = r.findings().get(0);
        assertEquals(Severity.UNKNOWN, f.severity());
        assertTrue(f.message().startsWith("cannot count cores: /sys/devices/system/cpu/cpu*/topology"), f.message());
    }

    @Test
    void aMissingOnlineListIsAnErrorNamingThePath() {
        TestProbeContext ctx = new TestProbeContext(root).params(Map.of());
        IOException e = assertThrows(IOException.class, () -> new CpuProbe().probe(ctx));
        assertEquals(root.resolve("sys/devices/system/cpu/online") + ": No such file or directory", e.getMessage());
    }

    @Test
    void aGarbledOnlineListIsAnErrorNamingThePath() throws IOException {
        TestProbeContext ctx = new TestProbeContext(root).params(Map.of());
        ctx.write("/sys/devices/system/cpu/online", "0-x\n");
        IOException e = assertThrows(IOException.class, () -> new CpuProbe().probe(ctx));
        assertTrue(e.getMessage().startsWith(root.resolve("sys/devices/system/cpu/online") + ": '0-x' is not a CPU list"), e.getMessage());
    }

    @Test
    void parsesTheKernelsListFormat() {
        assertEquals(BitSet.valueOf(new long[]{0b1111_0000_1111L}), CpuList.parse("0-3,8-11\n"));
        assertEquals(1, CpuList.parse("5").cardinality());
        assertTrue(CpuList.parse("\n").isEmpty());
        assertThrows(IllegalArgumentException.class, () -> CpuList.parse("4-2"));
        assertEquals("0-4,6,8-9", SysfsCpuTree.list(CpuList.parse("0-4,6,8,9")));
    }

    @Test
    void readsTheRealMachine() throws Exception {
        // The node these tests run on: whatever it has, the counts must be consistent.
        TestProbeContext ctx = new TestProbeContext(Path.of("/")).params(Map.of());
        Observation o = new CpuProbe().probe(ctx).observations().get(0);
        long threads = (Long) o.get("threads");
        assertEquals(CpuList.parse(Files.readString(Path.of("/sys/devices/system/cpu/online"))).cardinality(), threads);
        if (o.get("cores") instanceof Long cores) {
            assertTrue(cores >= 1 && cores <= threads, o.toString());
            assertTrue((Long) o.get("sockets") <= cores, o.toString());
        }
    }
}
