package dev.nhc.checks.net;

import dev.nhc.engine.testing.TestProbeContext;
import dev.nhc.model.Finding;
import dev.nhc.model.Observation;
import dev.nhc.model.Severity;
import dev.nhc.model.Verdict;
import dev.nhc.rules.testing.Pipeline;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** net.interface over /sys/class/net trees laid out as the kernel does: each interface a link to its device directory. */
class NetInterfaceProbeTest {
    @TempDir
    Path root;

    private void healthyNode() throws IOException {
        NetSysfsTree.healthyNode(root);
    }

    private Verdict run(String with) throws Exception {
        return new Pipeline(root, new NetInterfaceProbe()).run("- { name: net, use: net.interface, with: " + with + " }");
    }

    private static List<Finding> failed(Verdict v) {
        return Pipeline.findings(v, "net").stream().filter(f -> f.severity() != Severity.PASS).toList();
    }

    @Test
    void anInterfaceThatIsThereIsObservedWithItsStateSpeedAndMtu() throws Exception {
        healthyNode();
        TestProbeContext ctx = new TestProbeContext(root).with(new NetInterfaceProbe().spec(), "{ name: [ib0, lo, ib1] }");
        List<Observation> obs = new NetInterfaceProbe().probe(ctx).observations();
        assertEquals(3L, obs.get(0).get("interfaces_found"));
        assertEquals(0L, obs.get(0).get("names_missing"));
        Observation ib0 = obs.stream().filter(o -> o.entity().label().equals("interface ib0")).findFirst().orElseThrow();
        assertEquals("up", ib0.get("operstate"));
        assertEquals(true, ib0.get("up"));
        assertEquals(400000L, ib0.get("speed"));
        assertEquals(4092L, ib0.get("mtu"));
        assertEquals(32L, ib0.get("link_type"));
        Observation lo = obs.stream().filter(o -> o.entity().label().equals("interface lo")).findFirst().orElseThrow();
        assertEquals(true, lo.get("up"), "loopback's operstate is unknown; administratively up with carrier is up");
        assertNull(lo.get("speed"));
        Observation ib1 = obs.stream().filter(o -> o.entity().label().equals("interface ib1")).findFirst().orElseThrow();
        assertEquals(false, ib1.get("up"));
        assertNull(ib1.get("speed"), "a down link's speed of -1 is no speed");
    }

    @Test
    void presenceAloneIsWhatLbnlsCheckHwEthAsks() throws Exception {
        healthyNode();
        assertTrue(failed(run("{ name: ib1 }")).isEmpty(), "a down interface is present");
        assertTrue(failed(run("{ name: \"ib*\" }")).isEmpty(), "a glob matches as in LBNL's [[ DEV == $glob ]]");
        List<Finding> missing = failed(run("{ name: [eth0, docker0, \"enp*\"] }"));
        assertEquals(1, missing.size(), missing.toString());
        assertEquals("no interface docker0, enp*", missing.get(0).message());
        assertTrue(failed(run("{ name: bonding_masters }")).size() == 1, "bonding_masters is a file of the class, not an interface");
    }

    @Test
    void upSpeedAndMtuAreJudgedWhenAsked() throws Exception {
        healthyNode();
        assertTrue(failed(run("{ name: [ib0, eth0, lo], up: true }")).isEmpty());
        List<Finding> down = failed(run("{ name: \"ib*\", up: true }"));
        assertEquals(List.of("interface ib1 is down, expected up"), down.stream().map(Finding::message).toList());
        List<Finding> slow = failed(run("{ name: eth0, speed: 100000 }"));
        assertEquals(List.of("interface eth0 runs at 25000 Mb/s, below 100000 Mb/s"), slow.stream().map(Finding::message).toList());
        assertTrue(failed(run("{ name: ib0, speed: 400000, mtu: 4092 }")).isEmpty());
        List<Finding> mtu = failed(run("{ name: eth0, mtu: 1500 }"));
        assertEquals(List.of("interface eth0 has MTU 9000, expected 1500"), mtu.stream().map(Finding::message).toList());
    }

    @Test
    void noSysClassNetIsNoInterfaceAndAnUnreadableOneCannotPass() throws Exception {
        assertEquals(1, failed(run("{ name: eth0 }")).size(), "no /sys/class/net: eth0 is missing");
        Path dev = NetSysfsTree.netdev(root, "eth0", "up", "0x1003", "1", "1000", "1500", "1");
        java.nio.file.Files.delete(dev.resolve("flags"));
        Finding f = Pipeline.about(run("{ name: eth0 }"), "net", "interface eth0");
        assertEquals(Severity.UNKNOWN, f.severity(), f.toString());
        assertTrue(f.message().endsWith("eth0: flags is missing"), f.message());
    }

    @Test
    void aNameIsRequiredAndValuesAreChecked() {
        Pipeline p = new Pipeline(root, new NetInterfaceProbe());
        assertThrowsConfig(p, "- { name: net, use: net.interface, with: { up: true } }", "needs 'name'");
        assertThrowsConfig(p, "- { name: net, use: net.interface, with: { name: eth0, mtu: 10 } }", "must be at least 68");
    }

    private static void assertThrowsConfig(Pipeline p, String check, String expected) {
        try {
            p.plan(check);
        } catch (Exception e) {
            assertTrue(e.getMessage().contains(expected), e.getMessage());
            return;
        }
        throw new AssertionError("accepted: " + check);
    }
}
