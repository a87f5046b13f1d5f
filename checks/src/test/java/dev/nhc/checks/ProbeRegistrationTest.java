package dev.nhc.checks;

import dev.nhc.engine.config.Config;
import dev.nhc.engine.config.ConfigException;
import dev.nhc.engine.plan.ConfigLoader;
import dev.nhc.rules.RuleEngine;
import dev.nhc.engine.plan.ProbeRegistry;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The probes are found by name through ServiceLoader, and configs that use them load with their params converted. */
class ProbeRegistrationTest {
    private static ConfigLoader loader() {
        return new ConfigLoader(ProbeRegistry.load(), new RuleEngine(), List.of()).enforceOwnership(false);
    }

    /** The built-in probes the README and {@code nhc list} document, by name. */
    private static final java.util.Set<String> BUILT_IN = java.util.Set.of(
            "command", "cpu", "dcgm.diag", "dcgm.health", "disk.mount", "disk.nvme", "disk.usage", "disk.writable", "file",
            "gpu.amd-events", "gpu.ecc", "gpu.fabric", "gpu.inventory", "gpu.links", "gpu.memory-repair", "gpu.nvlink", "gpu.pcie", "gpu.power", "gpu.thermal", "gpu.xid",
            "ib.ports", "kernel.log", "kernel.module", "load", "memory", "net.interface", "process", "systemd.unit");

    @Test
    void everyProbeIsRegisteredByName() {
        ProbeRegistry r = ProbeRegistry.load();
        for (String name : BUILT_IN) {
            assertTrue(r.find(name).isPresent(), name + " is not registered");
        }
    }

    @Test
    void everyCatalogEntryCreatesAProbeOfThatName() {
        ProbeRegistry r = ProbeRegistry.load();
        assertEquals(BUILT_IN, java.util.Set.copyOf(r.names()), "a new probe belongs in BUILT_IN, the README and docs");
        for (String name : r.names()) {
            assertEquals(name, r.find(name).orElseThrow(() -> new AssertionError(name + " cannot be created")).spec().name());
        }
        assertEquals(r.names(), r.all().keySet());
    }

    @Test
    void aConfigUsingThemLoads() throws ConfigException {
        String yaml = """
                nhc: 1
                checks:
                  - name: sshd
                    use: process
                    with: { name: sshd, user: root }
                  - name: slurmd
                    use: systemd.unit
                    with: { unit: slurmd.service }
                  - name: marker
                    use: file
                    with: { path: /etc/nhc/marker, mode: 0644, max_age: 1h, contains: "ok" }
                  - name: ib
                    use: command
                    with: { command: [/usr/sbin/ibstat, mlx5_0], timeout: 5s, output: "State: Active" }
                  - name: uvm
                    use: kernel.module
                    with: { name: nvidia_uvm }
                  - name: klog
                    use: kernel.log
                    with:
                      log: journal
                      patterns:
                        - { regex: "mlx5.*compromised", severity: fail, message: "ConnectX health" }
                  - name: xid
                    use: gpu.xid
                    with: { fail: [48, 64, 74, 79, 95, 119, 120, 140], warn: [31, 43, 63, 94] }
                """;
        Config c = loader().parse("nhc.yaml", yaml, null).config();
        assertEquals(7, c.checks().size());
        assertEquals("0644", String.valueOf(c.check("marker").orElseThrow().with().raw("mode")));
        assertEquals(List.of(48L, 64L, 74L, 79L, 95L, 119L, 120L, 140L), c.check("xid").orElseThrow().with().raw("fail"));
        assertEquals(List.of("/usr/sbin/ibstat", "mlx5_0"), c.check("ib").orElseThrow().with().raw("command"));
        // A default the spec declares is in the converted params, but not as written by the config.
        assertEquals(true, c.check("uvm").orElseThrow().with().raw("loaded"));
        assertFalse(c.check("uvm").orElseThrow().with().given("loaded"));
    }

    @Test
    void aMistypedKeyIsRejectedWithASuggestion() {
        ConfigException e = assertThrows(ConfigException.class, () -> loader().parse("nhc.yaml", """
                nhc: 1
                checks:
                  - name: xid
                    use: gpu.xid
                    with: { fial: [48] }
                """, null));
        assertTrue(e.getMessage().contains("nhc.yaml:5:") && e.getMessage().contains("did you mean 'fail'"), e.getMessage());
    }
}
