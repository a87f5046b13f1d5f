package dev.nhc.checks.net;

import dev.nhc.engine.config.ConfigException;
import dev.nhc.engine.testing.TestProbeContext;
import dev.nhc.model.Entity;
import dev.nhc.model.Finding;
import dev.nhc.model.Observation;
import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;
import dev.nhc.model.Verdict;
import dev.nhc.probe.ProbeResult;
import dev.nhc.rules.testing.Pipeline;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** ib.ports over sysfs trees laid out as the kernel does; verdicts as nhc run judges them. */
class IbPortsProbeTest {
    @TempDir
    Path root;
    private IbSysfsTree sys;
    private Pipeline pipeline;

    @BeforeEach
    void tree() {
        sys = new IbSysfsTree(root);
        pipeline = new Pipeline(root, new IbPortsProbe());
    }

    /** Eight NDR ports mlx5_0..mlx5_7, all up. */
    private void eightNdr() throws IOException {
        for (int i = 0; i < 8; i++) {
            sys.ib("mlx5_" + i, 1);
        }
    }

    private List<Observation> observe(TestProbeContext ctx, String with) throws IOException {
        ProbeResult r = new IbPortsProbe().probe(ctx.with(new IbPortsProbe().spec(), with));
        return r.observations();
    }

    private static Observation of(List<Observation> obs, String label) {
        return obs.stream().filter(o -> o.entity().label().equals(label)).findFirst()
                .orElseThrow(() -> new AssertionError("no observation of " + label + " in " + obs));
    }

    private Verdict run(String with) throws Exception {
        return pipeline.run("- { name: ib, use: ib.ports, with: " + with + " }");
    }

    private static List<Finding> bad(Verdict v) {
        List<Finding> out = new ArrayList<>();
        for (Finding f : Pipeline.findings(v, "ib")) {
            if (f.severity() != Severity.PASS) {
                out.add(f);
            }
        }
        return out;
    }

    @Test
    void anActivePortIsObservedWithItsRateAndCounters() throws IOException {
        sys.ib("mlx5_0", 1).counter("symbol_error", 12);
        List<Observation> obs = observe(new TestProbeContext(root), "{}");
        Observation port = of(obs, "port mlx5_0/1");
        assertEquals(new Entity(Entity.Kind.PORT, "mlx5_0/1", "port mlx5_0/1", null), port.entity());
        assertEquals("ACTIVE", port.get("state"));
        assertEquals("LinkUp", port.get("phys_state"));
        assertEquals(true, port.get("active"));
        assertEquals(true, port.get("expected_active"));
        assertEquals(400.0, port.get("rate"));
        assertEquals("4X NDR", port.get("speed"));
        assertEquals("InfiniBand", port.get("link_layer"));
        assertEquals(12L, port.get("symbol_error"));
        assertEquals(0L, port.get("link_downed"));
        assertNull(port.get("netdev"), "an InfiniBand port has no RoCE netdev");
        assertNull(port.get("link_downed_increase"), "the first run has nothing to compare with");
        Observation node = of(obs, "node");
        assertEquals(1L, node.get("ports_found"));
        assertEquals(1L, node.get("ports_up"));
        assertEquals("InfiniBand ports", node.get("looked_for"));
    }

    @Test
    void aHealthyEightByNdrNodePasses() throws Exception {
        eightNdr();
        Verdict v = run("{ count: 8, rate: 400 }");
        assertEquals(Severity.PASS, Pipeline.severity(v, "ib"), Pipeline.findings(v, "ib").toString());
        assertEquals(9, Pipeline.findings(v, "ib").size(), "the node and eight ports");
        assertEquals(Severity.PASS, run("{}").checks().get(0).severity());
    }

    @Test
    void aPortThatIsDownFailsByNameWithRemedyHardware() throws Exception {
        eightNdr();
        sys.ib("mlx5_3", 1).state("1: DOWN").phys("2: Polling").rate("10 Gb/sec (4X SDR)");
        sys.ib("mlx5_6", 1).state("1: DOWN").phys("3: Disabled");
        Verdict v = run("{}");
        Finding polling = Pipeline.about(v, "ib", "port mlx5_3/1");
        assertEquals(Severity.FAIL, polling.severity());
        assertEquals("port mlx5_3/1 is DOWN (Polling), expected ACTIVE", polling.message());
        assertEquals(Remedy.HARDWARE, polling.remedy());
        Finding disabled = Pipeline.about(v, "ib", "port mlx5_6/1");
        assertEquals("port mlx5_6/1 is DOWN (Disabled), expected ACTIVE", disabled.message());
        assertEquals(2, bad(v).size(), bad(v).toString());
    }

    @Test
    void aPortWaitingForTheSubnetManagerWarns() throws Exception {
        sys.ib("mlx5_0", 1).state("2: INIT");
        Finding f = Pipeline.about(run("{}"), "ib", "port mlx5_0/1");
        assertEquals(Severity.WARN, f.severity());
        assertEquals("port mlx5_0/1 is INIT: the link is up but the subnet manager has not activated it", f.message());
    }

    @Test
    void tooFewPortsUpAtTheRateFailsNamingThePortsThatDoNotCount() throws Exception {
        eightNdr();
        sys.ib("mlx5_2", 1).state("1: DOWN").phys("2: Polling").rate("10 Gb/sec (4X SDR)");
        sys.ib("mlx5_6", 1).rate("200 Gb/sec (4X HDR)");
        Verdict v = run("{ count: 8, rate: 400 }");
        Finding node = Pipeline.about(v, "ib", "node");
        assertEquals(Severity.FAIL, node.severity());
        assertEquals("only 6 of 8 ports up: mlx5_2/1 DOWN (Polling), mlx5_6/1 at 200 Gb/s", node.message());
        assertEquals(Remedy.HARDWARE, node.remedy());
        assertEquals(List.of(node), bad(v), "with count the ports are judged together, not one by one");
    }

    @Test
    void withCountAndRateUnusedAndSlowerPortsDoNotCountAndDoNotFail() throws Exception {
        eightNdr();
        sys.ib("mlx5_0", 2).state("1: DOWN").phys("2: Polling").rate("10 Gb/sec (4X SDR)"); // unused second port
        sys.ib("mlx5_8", 1).rate("100 Gb/sec (4X EDR)");                                       // management
        Verdict v = run("{ count: 8, rate: 400 }");
        assertEquals(Severity.PASS, Pipeline.severity(v, "ib"), bad(v).toString());
        // a ninth port would be needed if one of the eight went down: the management port does not stand in
        sys.ib("mlx5_4", 1).state("1: DOWN").phys("3: Disabled");
        assertEquals("only 7 of 8 ports up: mlx5_0/2 DOWN (Polling), mlx5_4/1 DOWN (Disabled), mlx5_8/1 at 100 Gb/s",
                Pipeline.about(run("{ count: 8, rate: 400 }"), "ib", "node").message());
    }

    @Test
    void aMissingHcaIsCountedAsNotFound() throws Exception {
        for (int i = 0; i < 7; i++) {
            sys.ib("mlx5_" + i, 1);
        }
        Finding node = Pipeline.about(run("{ count: 8 }"), "ib", "node");
        assertEquals(Severity.FAIL, node.severity());
        assertEquals("only 7 of 8 ports up: 1 port not found", node.message());
    }

    @Test
    void aSlowPortWarnsWhenRateIsGivenWithoutCount() throws Exception {
        sys.ib("mlx5_0", 1);
        sys.ib("mlx5_1", 1).rate("200 Gb/sec (2X NDR)");
        Verdict v = run("{ rate: 400 }");
        Finding slow = Pipeline.about(v, "ib", "port mlx5_1/1");
        assertEquals(Severity.WARN, slow.severity());
        assertEquals("port mlx5_1/1 is active at 200 Gb/s, below the expected 400 Gb/s", slow.message());
        assertEquals(List.of(slow), bad(v));
    }

    @Test
    void rocePortsAreLeftOutByDefaultAndObservedWithTheirNetdevOnRequest() throws Exception {
        sys.ib("mlx5_0", 1);
        sys.roce("mlx5_1", 1, "enp27s0f0np0").state("1: DOWN").phys("3: Disabled");
        Verdict v = run("{}");
        assertEquals(Severity.PASS, Pipeline.severity(v, "ib"), "Ethernet ports are not judged unless asked for");
        assertEquals(1L, Pipeline.about(v, "ib", "node").observed().get("ports_found"));

        List<Observation> roce = observe(new TestProbeContext(root), "{ link_layer: ethernet }");
        Observation port = of(roce, "port mlx5_1/1");
        assertEquals("enp27s0f0np0", port.get("netdev"));
        assertEquals("Ethernet", port.get("link_layer"));
        assertEquals(1L, of(roce, "node").get("ports_other"));
        Finding down = Pipeline.about(run("{ link_layer: ethernet }"), "ib", "port mlx5_1/1");
        assertEquals(Severity.FAIL, down.severity());
        assertEquals("port mlx5_1/1 is DOWN (Disabled), expected ACTIVE", down.message());
        assertEquals(2L, of(observe(new TestProbeContext(root), "{ link_layer: any }"), "node").get("ports_found"));
    }

    @Test
    void aRocePortWithoutAGidTakesTheNetdevOfItsPciFunctionByDevPort() throws Exception {
        sys.roce("mlx4_0", 1, null).functionNetdev("ens2", 0).functionNetdev("ens2d1", 1);
        sys.roce("mlx4_0", 2, null);
        List<Observation> obs = observe(new TestProbeContext(root), "{ link_layer: ethernet }");
        assertEquals("ens2", of(obs, "port mlx4_0/1").get("netdev"));
        assertEquals("ens2d1", of(obs, "port mlx4_0/2").get("netdev"));
    }

    @Test
    void noInfinibandDevicesFails() throws Exception {
        Finding f = Pipeline.only(run("{}"), "ib");
        assertEquals(Severity.FAIL, f.severity());
        assertEquals("no InfiniBand ports found (0 other ports present)", f.message());
        sys.roce("mlx5_0", 1, "eth0");
        assertEquals("no InfiniBand ports found (1 other port present)", Pipeline.only(run("{}"), "ib").message());
    }

    @Test
    void devicesSelectPortsAndAnEntryMatchingNoPortFails() throws Exception {
        eightNdr();
        sys.roce("mlx5_8", 1, "eth0");
        sys.ib("mlx5_3", 1).state("1: DOWN").phys("2: Polling");
        List<Observation> obs = observe(new TestProbeContext(root), "{ devices: [mlx5_0, \"mlx5_[4-6]\", mlx5_7/1] }");
        assertEquals(List.of("node", "port mlx5_0/1", "port mlx5_4/1", "port mlx5_5/1", "port mlx5_6/1", "port mlx5_7/1"),
                obs.stream().map(o -> o.entity().label()).toList());
        assertEquals("InfiniBand ports of mlx5_0, mlx5_[4-6], mlx5_7/1", of(obs, "node").get("looked_for"));
        assertEquals(0L, of(obs, "node").get("devices_missing"));

        Finding f = Pipeline.about(run("{ devices: [mlx5_0, mlx5_8, \"mlx5_1[0-9]\"] }"), "ib", "node");
        assertEquals(Severity.FAIL, f.severity());
        assertEquals("devices without a port to check: mlx5_8 (no InfiniBand port), mlx5_1[0-9] (not found)", f.message());
        assertEquals(Remedy.HARDWARE, f.remedy());
    }

    @Test
    void devicesAreInNaturalOrder() throws IOException {
        sys.ib("mlx5_10", 1);
        sys.ib("mlx5_2", 1);
        sys.ib("mlx5_2", 2);
        assertEquals(List.of("node", "port mlx5_2/1", "port mlx5_2/2", "port mlx5_10/1"),
                observe(new TestProbeContext(root), "{}").stream().map(o -> o.entity().label()).toList());
    }

    @Test
    void aPortWhoseStateCannotBeReadIsUnknownAndDoesNotCount() throws Exception {
        sys.ib("mlx5_0", 1);
        IbSysfsTree.Port broken = sys.ib("mlx5_1", 1);
        Files.delete(broken.dir().resolve("state"));
        Files.createDirectory(broken.dir().resolve("state"));
        Verdict v = run("{ count: 2 }");
        Finding port = Pipeline.about(v, "ib", "port mlx5_1/1");
        assertEquals(Severity.UNKNOWN, port.severity());
        assertTrue(port.message().startsWith("cannot read ") && port.message().contains("mlx5_1/ports/1/state"), port.message());
        assertEquals("only 1 of 2 ports up: mlx5_1/1 (unreadable)", Pipeline.about(v, "ib", "node").message());
    }

    @Test
    void linkDownedAndErrorRecoveryRisingBetweenRunsWarn() throws Exception {
        IbSysfsTree.Port p = sys.ib("mlx5_0", 1).counter("link_downed", 4).counter("link_error_recovery", 7);
        assertEquals(Severity.PASS, Pipeline.severity(run("{}"), "ib"), "counters high since boot are not a flap");
        p.counter("link_downed", 5);
        Finding flap = Pipeline.about(run("{}"), "ib", "port mlx5_0/1");
        assertEquals(Severity.WARN, flap.severity());
        assertEquals("port mlx5_0/1 link went down since the previous run (link_downed +1)", flap.message());
        assertEquals(Severity.PASS, Pipeline.severity(run("{}"), "ib"), "no new flap since");
        p.counter("link_error_recovery", 9);
        Finding recovery = Pipeline.about(run("{}"), "ib", "port mlx5_0/1");
        assertEquals(Severity.WARN, recovery.severity());
        assertEquals("port mlx5_0/1 retrained after link errors since the previous run (link_error_recovery +2)", recovery.message());
    }

    @Test
    void aBurstOfFlapsWithinTheWindowFails() throws Exception {
        IbSysfsTree.Port p = sys.ib("mlx5_0", 1);
        run("{}");
        p.counter("link_downed", 1);
        assertEquals(Severity.WARN, Pipeline.severity(run("{}"), "ib"));
        p.counter("link_downed", 3);
        Finding burst = Pipeline.about(run("{}"), "ib", "port mlx5_0/1");
        assertEquals(Severity.FAIL, burst.severity());
        assertEquals("port mlx5_0/1 is flapping: link_downed +3 within 600s", burst.message());
        assertEquals(Remedy.HARDWARE, burst.remedy());
        // the burst stays a failure while it is within the window, even without new flaps
        assertEquals(Severity.FAIL, Pipeline.severity(run("{}"), "ib"));
        // a check with a larger burst only warns on the same flaps
        assertEquals(Severity.PASS, Pipeline.severity(pipeline.run("- { name: ib, use: ib.ports, with: { flap_burst: 5 } }"), "ib"));
    }

    /** A device whose ports/ could not be listed once keeps its ports' flap history. */
    @Test
    void aDeviceListedOnceUnreadableKeepsItsFlapWindow() throws Exception {
        IbSysfsTree.Port p = sys.ib("mlx5_0", 1);
        run("{}");
        p.counter("link_downed", 3);
        assertEquals(Severity.FAIL, Pipeline.severity(run("{}"), "ib"));
        Path ports = p.dir().getParent();
        Path aside = ports.resolveSibling("ports.aside");
        Files.move(ports, aside);
        Files.writeString(ports, "not a directory");
        assertEquals(Severity.UNKNOWN, Pipeline.about(run("{}"), "ib", "device mlx5_0").severity());
        Files.delete(ports);
        Files.move(aside, ports);
        Finding burst = Pipeline.about(run("{}"), "ib", "port mlx5_0/1");
        assertEquals(Severity.FAIL, burst.severity(), "the burst is still within the window: " + burst.message());
    }

    @Test
    void flapsOlderThanTheWindowNoLongerCount() throws IOException {
        IbSysfsTree.Port p = sys.ib("mlx5_0", 1);
        Instant t0 = Instant.parse("2026-11-20T10:00:00Z");
        TestProbeContext ctx = new TestProbeContext(root);
        String with = "{ flap_window: 10m }";
        observe(ctx.clock(Clock.fixed(t0, ZoneOffset.UTC)), with);
        p.counter("link_downed", 2);
        Observation first = of(observe(ctx.clock(Clock.fixed(t0.plus(Duration.ofMinutes(1)), ZoneOffset.UTC)), with), "port mlx5_0/1");
        assertEquals(2L, first.get("link_downed_increase"));
        assertEquals(2L, first.get("link_downed_in_window"));
        p.counter("link_downed", 3);
        Observation second = of(observe(ctx.clock(Clock.fixed(t0.plus(Duration.ofMinutes(6)), ZoneOffset.UTC)), with), "port mlx5_0/1");
        assertEquals(3L, second.get("link_downed_in_window"), "both within 10 minutes");
        Observation later = of(observe(ctx.clock(Clock.fixed(t0.plus(Duration.ofMinutes(12)), ZoneOffset.UTC)), with), "port mlx5_0/1");
        assertEquals(1L, later.get("link_downed_in_window"), "the first two were seen 11 minutes ago");
        assertEquals(0L, later.get("link_downed_increase"));
    }

    @Test
    void errorCountersBecomeRatesPerMinute() throws IOException {
        IbSysfsTree.Port p = sys.ib("mlx5_0", 1).counter("symbol_error", 100).counter("port_rcv_errors", 5);
        Instant t0 = Instant.parse("2026-11-20T10:00:00Z");
        TestProbeContext ctx = new TestProbeContext(root);
        observe(ctx.clock(Clock.fixed(t0, ZoneOffset.UTC)), "{}");
        p.counter("symbol_error", 130).counter("port_rcv_errors", 5);
        Observation o = of(observe(ctx.clock(Clock.fixed(t0.plus(Duration.ofMinutes(10)), ZoneOffset.UTC)), "{}"), "port mlx5_0/1");
        assertEquals(3.0, o.get("symbol_error_rate"));
        assertEquals(0.0, o.get("port_rcv_errors_rate"));
        assertNull(o.get("excessive_buffer_overrun_errors_rate"), "a counter the port does not have");
    }

    @Test
    void countersThatWentDownOrStateThatIsNotANumberStartAfreshWithoutAFinding() throws Exception {
        IbSysfsTree.Port p = sys.ib("mlx5_0", 1).counter("link_downed", 9).counter("link_error_recovery", 4);
        run("{}");
        p.counter("link_downed", 0); // perfquery -R, or a reboot
        assertEquals(Severity.PASS, Pipeline.severity(run("{}"), "ib"));
        p.counter("link_downed", 1);
        assertEquals(Severity.WARN, Pipeline.severity(run("{}"), "ib"), "counting goes on from the reset value");

        Instant now = Instant.parse("2026-11-20T10:00:00Z");
        TestProbeContext ctx = new TestProbeContext(root).clock(Clock.fixed(now, ZoneOffset.UTC));
        ctx.state().put("mlx5_0/1", Map.of("at", now.plusSeconds(3600).toEpochMilli(), "link_downed", -3L, "link_error_recovery", "many",
                "symbol_error", 0.5, "flaps", List.of(List.of("yesterday", 4L), List.of(now.toEpochMilli() - 1000, -2L), List.of(1L))));
        Observation o = of(observe(ctx, "{}"), "port mlx5_0/1");
        assertNull(o.get("link_downed_increase"));
        assertNull(o.get("link_error_recovery_increase"));
        assertNull(o.get("symbol_error_rate"), "no rate from a time in the future");
        assertEquals(0L, o.get("link_downed_in_window"), "malformed flap entries are dropped");
        ctx.state().put("mlx5_0/1", "not a map");
        assertNull(of(observe(ctx, "{}"), "port mlx5_0/1").get("link_downed_increase"));
        @SuppressWarnings("unchecked")
        Map<String, Object> kept = (Map<String, Object>) ctx.state().get("mlx5_0/1");
        assertEquals(1L, kept.get("link_downed"), "the state holds this run's values again");
    }

    @Test
    void portsThatAreGoneAreForgotten() throws IOException {
        sys.ib("mlx5_0", 1);
        TestProbeContext ctx = new TestProbeContext(root);
        ctx.state().put("mlx5_9/1", Map.of("at", 1L, "link_downed", 3L));
        observe(ctx, "{}");
        assertFalse(ctx.state().snapshot().containsKey("mlx5_9/1"));
        assertTrue(ctx.state().snapshot().containsKey("mlx5_0/1"));
    }

    @Test
    void aConfigsWarnAndFailReplaceTheDefaultsAndNoneDropsThem() throws Exception {
        IbSysfsTree.Port p = sys.ib("mlx5_0", 1).counter("symbol_error", 0);
        sys.ib("mlx5_1", 1).state("2: INIT");
        String check = "- name: ib\n  use: ib.ports\n  warn: { symbol_error_rate: \"> 2/min\" }\n";
        pipeline.run(check);
        p.counter("link_downed", 1).counter("symbol_error", 100000);
        Verdict v = pipeline.run(check);
        Finding f = Pipeline.about(v, "ib", "port mlx5_0/1");
        assertEquals(Severity.WARN, f.severity(), "the site's own warning");
        assertTrue(f.message().startsWith("port mlx5_0/1: symbol_error_rate "), f.message());
        assertEquals(Severity.PASS, Pipeline.about(v, "ib", "port mlx5_1/1").severity(), "the default INIT warning is replaced");

        sys.ib("mlx5_2", 1).state("1: DOWN").phys("2: Polling");
        assertEquals(Severity.PASS, Pipeline.about(pipeline.run("- { name: ib, use: ib.ports, fail: none }"), "ib", "port mlx5_2/1")
                .severity(), "fail: none drops the default FAIL rules");
        Verdict warnNone = pipeline.run("- { name: ib, use: ib.ports, warn: none }");
        assertEquals(Severity.PASS, Pipeline.about(warnNone, "ib", "port mlx5_1/1").severity());
        assertEquals(Severity.FAIL, Pipeline.about(warnNone, "ib", "port mlx5_2/1").severity(), "warn: none keeps the FAIL rules");
        Verdict ownFail = pipeline.run("- { name: ib, use: ib.ports, fail: { phys_state: Disabled } }");
        assertEquals(Severity.PASS, Pipeline.about(ownFail, "ib", "port mlx5_2/1").severity(), "Polling is not what this site fails on");
    }

    @Test
    void badParamsAreConfigErrorsWithTheirPlace() {
        assertConfigError("{ link_layer: fiber }", "'fiber' is not one of infiniband, ethernet, any");
        assertConfigError("{ count: 0 }", "'count'", "must be at least 1");
        assertConfigError("{ rate: 0 }", "'rate'", "must be at least 1");
        assertConfigError("{ rate: fast }", "'rate'");
        assertConfigError("{ devices: [\"mlx5_[0-\"] }", "not a glob");
        assertConfigError("{ devices: [] }", "list at least one device");
        assertConfigError("{ flap_window: 0s }", "'flap_window'", "longer than 0");
        assertConfigError("{ flap_window: 2d }", "'flap_window'", "at most 24h");
        assertConfigError("{ flap_burst: 0 }", "'flap_burst'", "at least 1");
        assertConfigError("{ port: 1 }", "unknown key 'port'");
        assertConfigError("{ devices: [\"mlx5_0 1\"] }", "'mlx5_0 1' is not a device (mlx5_0), a device and port");
        assertConfigError("{ devices: [mlx5_0:one] }", "'mlx5_0:one' is not a device");
        assertConfigError("{ devices: [mlx5_0/1/2] }", "'mlx5_0/1/2' is not a device");
    }

    @Test
    void lbnlsDeviceColonPortNamesThePortAsCheckHwIbDoes() throws Exception {
        sys.ib("mlx5_0", 1);
        sys.ib("mlx5_0", 2).state("1: DOWN").phys("3: Disabled");
        sys.ib("mlx5_10", 1).state("1: DOWN").phys("2: Polling");
        assertTrue(bad(run("{ rate: 400, devices: [\"mlx5_0:1\"] }")).isEmpty(), "mlx5_0:1 is port 1 of mlx5_0, up at 400 Gb/s");
        assertTrue(bad(run("{ rate: 400, count: 1, devices: [\"mlx5_0:*\"] }")).isEmpty(), "a glob over the port");
        List<Finding> down = bad(run("{ rate: 400, devices: [\"mlx5_0:2\"] }"));
        assertEquals(List.of("port mlx5_0/2 is DOWN (Disabled), expected ACTIVE"), down.stream().map(Finding::message).toList());
        List<Finding> missing = bad(run("{ devices: [\"mlx5_1:1\"] }"));
        assertEquals(List.of("no InfiniBand ports of mlx5_1:1 found (3 other ports present)"), missing.stream().map(Finding::message).toList(),
                "mlx5_1:1 is not a prefix of mlx5_10:1");
    }

    private void assertConfigError(String with, String... parts) {
        ConfigException e = assertThrows(ConfigException.class, () -> pipeline.plan("- { name: ib, use: ib.ports, with: " + with + " }"),
                with);
        assertTrue(e.getMessage().matches("(?s)nhc\\.yaml:\\d+:\\d+: .*"), e.getMessage());
        for (String part : parts) {
            assertTrue(e.getMessage().contains(part), with + " → " + e.getMessage());
        }
    }
}
