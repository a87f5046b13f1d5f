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
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CpuProbeTest {
    private static final String EXPECT_256 = "{ sockets: 2, cores: 128, threads: 256 }";
    private static final ProbeSpec SPEC = new CpuProbe().spec();

    @TempDir
    Path root;

    /** Writes the tree's sysfs under the root, once per test: a 256-CPU tree is over a thousand files. */
    private void write(SysfsCpuTree tree, BitSet online) throws IOException {
        tree.write(new TestProbeContext(root), online);
    }

    private Observation observe(String with) throws Exception {
        return new CpuProbe().probe(new TestProbeContext(root).with(SPEC, with)).observations().get(0);
    }

    /** The one finding of a cpu check with this {@code with:}, judged as nhc run judges it. */
    private Finding judge(String with) throws Exception {
        return Pipeline.only(new Pipeline(root, new CpuProbe()).run("- { name: cpus, use: cpu, with: " + with + " }"), "cpus");
    }

    @Test
    void countsA256ThreadNode() throws Exception {
        SysfsCpuTree tree = new SysfsCpuTree(2, 64, 2);
        write(tree, tree.all());
        Observation o = observe(EXPECT_256);
        assertEquals(Entity.NODE, o.entity());
        assertEquals(2L, o.get("sockets"));
        assertEquals(128L, o.get("cores"));
        assertEquals(256L, o.get("threads"));
        assertEquals("0-255", o.get("online"));
        assertEquals(0L, o.get("offline"));
        assertEquals(true, o.get("smt_active"));
        assertEquals("on", o.get("smt_control"));
        assertFalse(o.fields().containsKey("uncounted"));
        assertFalse(o.fields().containsKey("numa_nodes"), "no /sys/devices/system/node: no NUMA count");
        assertEquals(Severity.PASS, judge(EXPECT_256).severity());
    }

    @Test
    void countsNumaNodesAsLscpuListsThem() throws Exception {
        SysfsCpuTree tree = new SysfsCpuTree(2, 4, 1);
        write(tree, tree.all());
        for (String n : new String[] {"node0", "node1", "node2", "node3", "possible", "has_cpu"}) {
            java.nio.file.Files.createDirectories(root.resolve("sys/devices/system/node/" + n));
        }
        assertEquals(4L, observe("{ }").get("numa_nodes"));
    }

    @Test
    void smtSwitchedOffFailsTheThreadCount() throws Exception {
        SysfsCpuTree tree = new SysfsCpuTree(2, 64, 2);
        BitSet firstThreads = new BitSet();
        firstThreads.set(0, 128);
        write(tree, firstThreads);
        Observation o = observe(EXPECT_256);
        assertEquals(128L, o.get("cores"));
        assertEquals(128L, o.get("threads"));
        assertEquals(128L, o.get("offline"));
        assertEquals("off", o.get("smt_control"));
        Finding f = judge(EXPECT_256);
        assertEquals(Severity.FAIL, f.severity());
        assertEquals("128 threads, expected 256 (online: 0-127; SMT is off; 128 offline)", f.message());
        assertEquals(Remedy.NONE, f.remedy());
    }

    @Test
    void oneCpuOfflineFails() throws Exception {
        SysfsCpuTree tree = new SysfsCpuTree(2, 8, 2);
        BitSet online = tree.all();
        online.clear(5);
        write(tree, online);
        String with = "{ sockets: 2, cores: 16, threads: 32 }";
        // CPU 5's sibling 21 keeps its core counted.
        assertEquals(16L, observe(with).get("cores"));
        Finding f = judge(with);
        assertEquals(Severity.FAIL, f.severity());
        assertEquals("31 threads, expected 32 (online: 0-4,6-31; 1 offline)", f.message());
        assertEquals(Remedy.NONE, f.remedy());
    }

    @Test
    void aLostSocketPointsAtHardwareAndSaysWhatIsLeft() throws Exception {
        SysfsCpuTree tree = new SysfsCpuTree(1, 8, 2);
        write(tree, tree.all());
        Finding f = judge("{ sockets: 2, cores: 16, threads: 32 }");
        assertEquals(Severity.FAIL, f.severity());
        assertEquals("1 of 2 sockets online (8 cores, 16 threads; online: 0-15)", f.message());
        assertEquals(Remedy.HARDWARE, f.remedy());
    }

    @Test
    void lostCoresPointAtHardware() throws Exception {
        SysfsCpuTree tree = new SysfsCpuTree(2, 8, 2);
        BitSet online = tree.all();
        online.clear(5);
        online.clear(21);
        write(tree, online);
        Finding f = judge("{ cores: 16 }");
        assertEquals("15 of 16 cores online (30 threads; online: 0-4,6-20,22-31; 2 offline)", f.message());
        assertEquals(Remedy.HARDWARE, f.remedy());
    }

    @Test
    void moreThanExpectedWarns() throws Exception {
        SysfsCpuTree tree = new SysfsCpuTree(3, 4, 2);
        write(tree, tree.all());
        Finding f = judge("{ threads: 16 }");
        assertEquals(Severity.WARN, f.severity());
        assertEquals("24 threads, expected 16 (online: 0-23)", f.message());
        assertEquals("3 sockets, expected 2 (online: 0-23)", judge("{ sockets: 2 }").message());
        assertEquals("12 cores, expected 8 (online: 0-23)", judge("{ cores: 8 }").message());
    }

    @Test
    void aConfigsFailReplacesTheCountRules() throws Exception {
        SysfsCpuTree tree = new SysfsCpuTree(2, 4, 2);
        BitSet firstThreads = new BitSet();
        firstThreads.set(0, 8);
        write(tree, firstThreads);
        Pipeline p = new Pipeline(root, new CpuProbe());
        String with = "{ sockets: 2, cores: 8, threads: 16 }";
        assertEquals(Severity.FAIL, Pipeline.severity(p.run("- { name: cpus, use: cpu, with: " + with + " }"), "cpus"));
        // The site accepts SMT switched off: only fewer than 8 threads fails.
        String check = "- { name: cpus, use: cpu, with: " + with + ", fail: { threads: \"< 8\" } }";
        assertEquals(Severity.PASS, Pipeline.severity(p.run(check), "cpus"));
    }

    @Test
    void readsTheSiblingListsOfOlderKernels() throws Exception {
        SysfsCpuTree tree = new SysfsCpuTree(4, 8, 1).olderKernelNames();
        write(tree, tree.all());
        Observation o = observe("{ }");
        assertEquals(4L, o.get("sockets"));
        assertEquals(32L, o.get("cores"));
        assertEquals(32L, o.get("threads"));
        assertEquals(false, o.get("smt_active"));
        assertEquals("notsupported", o.get("smt_control"));
    }

    @Test
    void withoutSmtHardwareTheMessageDoesNotBlameSmt() throws Exception {
        SysfsCpuTree tree = new SysfsCpuTree(1, 2, 1);
        write(tree, tree.all());
        assertEquals("2 threads, expected 4 (online: 0-1; 0 offline)", judge("{ threads: 4 }").message());
    }

    @Test
    void withoutTopologyOnlyThreadsAreKnownAndExpectedCoresAreUnknown() throws Exception {
        SysfsCpuTree tree = new SysfsCpuTree(1, 4, 2).withoutTopology();
        write(tree, tree.all());
        Observation o = observe("{ sockets: 1, cores: 4, threads: 8 }");
        assertFalse(o.fields().containsKey("cores"));
        assertFalse(o.fields().containsKey("sockets"));
        assertEquals(8L, o.get("threads"));
        assertEquals("sockets, cores", o.get("uncounted"));
        assertFalse(observe("{ threads: 8 }").fields().containsKey("uncounted"));

        Finding f = judge("{ cores: 4, threads: 8 }");
        assertEquals(Severity.UNKNOWN, f.severity());
        assertEquals("cannot count cores: /sys/devices/system/cpu/cpu*/topology is not available here", f.message());
        // Threads it can count still fail.
        assertEquals(Severity.FAIL, judge("{ cores: 4, threads: 16 }").severity());
        assertEquals(Severity.PASS, judge("{ threads: 8 }").severity());
    }

    @Test
    void aMissingOnlineListIsAnErrorNamingThePath() {
        TestProbeContext ctx = new TestProbeContext(root).with(SPEC, "{ }");
        IOException e = assertThrows(IOException.class, () -> new CpuProbe().probe(ctx));
        assertEquals(root.resolve("sys/devices/system/cpu/online") + ": No such file or directory", e.getMessage());
    }

    @Test
    void aGarbledOnlineListIsAnErrorNamingThePath() throws IOException {
        TestProbeContext ctx = new TestProbeContext(root).with(SPEC, "{ }");
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
        TestProbeContext ctx = new TestProbeContext(Path.of("/")).with(SPEC, "{ }");
        Observation o = new CpuProbe().probe(ctx).observations().get(0);
        long threads = (Long) o.get("threads");
        assertEquals(CpuList.parse(Files.readString(Path.of("/sys/devices/system/cpu/online"))).cardinality(), threads);
        if (o.get("cores") instanceof Long cores) {
            assertTrue(cores >= 1 && cores <= threads, o.toString());
            assertTrue((Long) o.get("sockets") <= cores, o.toString());
        }
    }

    @Test
    void aCountBelowOneIsAConfigError() {
        Pipeline p = new Pipeline(root, new CpuProbe());
        assertTrue(ConfigErrors.at(p, "- { name: c, use: cpu, with: { cores: 0 } }", "0 }").endsWith("must be at least 1"));
        assertTrue(ConfigErrors.at(p, "- { name: c, use: cpu, with: { threads: many } }", "many").contains("must be a whole number"));
    }
}
