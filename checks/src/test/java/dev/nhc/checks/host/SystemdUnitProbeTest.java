package dev.nhc.checks.host;

import dev.nhc.checks.Scripts;
import dev.nhc.engine.config.ConfigException;
import dev.nhc.engine.testing.TestProbeContext;
import dev.nhc.model.Entity;
import dev.nhc.model.Finding;
import dev.nhc.model.Observation;
import dev.nhc.model.Severity;
import dev.nhc.probe.ProbeResult;
import dev.nhc.rules.testing.Pipeline;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SystemdUnitProbeTest {
    @TempDir
    Path bin;

    private Path fakeSystemctl() throws IOException {
        return Scripts.write(bin, "systemctl", "echo \"$@\" > " + bin.resolve("args") + "\n"
                + "case \"$5\" in\n"
                + " sshd.service) printf 'ActiveState=active\\nSubState=running\\nLoadState=loaded\\n';;\n"
                + " slurmd.service) printf 'ActiveState=failed\\nSubState=failed\\nLoadState=loaded\\n';;\n"
                + " nvidia-fabricmanager.service) printf 'ActiveState=activating\\nSubState=start\\nLoadState=loaded\\n';;\n"
                + " hang.service) sleep 60;;\n"
                + " nope.service) printf 'ActiveState=inactive\\nSubState=dead\\nLoadState=not-found\\n';;\n"
                + " *) printf 'ActiveState=inactive\\nSubState=dead\\nLoadState=loaded\\n';;\n"
                + "esac");
    }

    private Observation observe(String unit, Path systemctl) throws Exception {
        ProbeResult r = new SystemdUnitProbe().probe(new TestProbeContext(bin).budget(Duration.ofSeconds(3))
                .with(new SystemdUnitProbe().spec(), "{ unit: " + unit + ", systemctl: " + systemctl + " }"));
        assertEquals(1, r.observations().size());
        return r.observations().get(0);
    }

    /** The unit's one finding, judged as nhc run does; {@code more} adds with: keys. */
    private Finding judge(String unit, Path systemctl, String more) throws Exception {
        return Pipeline.only(new Pipeline(bin, new SystemdUnitProbe()).run("- name: u\n  use: systemd.unit\n  timeout: 3s\n"
                + "  with: { unit: " + unit + ", systemctl: " + systemctl + more + " }\n"), "u");
    }

    @Test
    void observesTheStatesAndTheCallIsArgvOnly() throws Exception {
        Observation o = observe("sshd.service", fakeSystemctl());
        assertEquals(Entity.of(Entity.Kind.SERVICE, "sshd.service"), o.entity());
        assertEquals("active", o.get("active_state"));
        assertEquals("running", o.get("sub_state"));
        assertEquals("loaded", o.get("load_state"));
        assertEquals(true, o.get("active"));
        assertEquals("show -p ActiveState,SubState,LoadState -- sshd.service", Files.readString(bin.resolve("args")).strip());
        assertEquals(true, observe("nvidia-fabricmanager.service", fakeSystemctl()).get("active"), "starting counts as running");
        assertEquals(false, observe("slurmd.service", fakeSystemctl()).get("active"));
    }

    @Test
    void activeUnitPasses() throws Exception {
        Finding f = judge("sshd.service", fakeSystemctl(), "");
        assertEquals(Severity.PASS, f.severity(), f.message());
        assertEquals("sshd.service", f.entity().label());
    }

    @Test
    void failedInactiveOrMissingUnitsFailAndAStartingOneWarns() throws Exception {
        Path sc = fakeSystemctl();
        Finding failed = judge("slurmd.service", sc, "");
        assertEquals(Severity.FAIL, failed.severity());
        assertEquals("unit slurmd.service is failed (failed), expected active", failed.message());
        Finding inactive = judge("gdm.service", sc, "");
        assertEquals(Severity.FAIL, inactive.severity());
        assertEquals("unit gdm.service is inactive (dead), expected active", inactive.message());
        Finding missing = judge("nope.service", sc, "");
        assertEquals(Severity.FAIL, missing.severity());
        assertEquals("unit nope.service not found (LoadState not-found)", missing.message());
        Finding starting = judge("nvidia-fabricmanager.service", sc, "");
        assertEquals(Severity.WARN, starting.severity());
        assertEquals("unit nvidia-fabricmanager.service is activating (start), not yet active", starting.message());
    }

    @Test
    void inactiveExpected() throws Exception {
        Path sc = fakeSystemctl();
        assertEquals(Severity.PASS, judge("gdm.service", sc, ", state: inactive").severity());
        assertEquals(Severity.PASS, judge("nope.service", sc, ", state: inactive").severity(), "a unit that is not there is not active");
        Finding running = judge("sshd.service", sc, ", state: inactive");
        assertEquals(Severity.FAIL, running.severity());
        assertEquals("unit sshd.service is active (running), expected inactive", running.message());
    }

    @Test
    void aSiteMayCountAStartingUnitAsFailedOrNotAtAll() throws Exception {
        Path sc = fakeSystemctl();
        Pipeline p = new Pipeline(bin, new SystemdUnitProbe());
        Finding strict = Pipeline.only(p.run("- { name: u, use: systemd.unit, with: { unit: nvidia-fabricmanager.service, systemctl: "
                + sc + " }, fail: { active_state: \"!= active\" } }"), "u");
        assertEquals(Severity.FAIL, strict.severity());
        assertEquals("nvidia-fabricmanager.service: active_state is 'activating', not 'active'", strict.message());
        assertEquals(Severity.PASS, Pipeline.only(p.run("- { name: u, use: systemd.unit, with: { unit: nvidia-fabricmanager.service, "
                + "systemctl: " + sc + " }, warn: none }"), "u").severity());
        assertEquals(Severity.FAIL, Pipeline.only(p.run("- { name: u, use: systemd.unit, with: { unit: slurmd.service, "
                + "systemctl: " + sc + " }, warn: none }"), "u").severity(), "warn: none keeps the default FAIL rules");
    }

    @Test
    void aBadStateIsAConfigError() {
        ConfigException e = assertThrows(ConfigException.class, () -> new Pipeline(bin, new SystemdUnitProbe())
                .plan("- { name: u, use: systemd.unit, with: { unit: sshd.service, state: running } }"));
        assertTrue(e.getMessage().matches("(?s)nhc\\.yaml:\\d+:\\d+: .*'running' is not one of active, inactive.*"), e.getMessage());
    }

    @Test
    void missingOrBrokenSystemctlIsUnknownWithTheReason() throws Exception {
        Finding missing = judge("sshd.service", bin.resolve("no-systemctl"), "");
        assertEquals(Severity.UNKNOWN, missing.severity());
        assertEquals("sshd.service", missing.entity().label());
        assertTrue(missing.message().startsWith("systemctl not found"), missing.message());
        Path broken = Scripts.write(bin, "systemctl2", "echo 'System has not been booted with systemd as init system (PID 1). Can'\"'\"'t operate.' >&2; exit 1");
        Finding f = judge("sshd.service", broken, "");
        assertEquals(Severity.UNKNOWN, f.severity());
        assertTrue(f.message().contains("System has not been booted with systemd"), f.message());
        assertFalse(f.message().contains("Exception"), f.message());
    }

    @Test
    void aHangingSystemctlIsKilledWithinTheCheckTime() throws Exception {
        long t0 = System.nanoTime();
        Finding f = judge("hang.service", fakeSystemctl(), "");
        assertEquals(Severity.UNKNOWN, f.severity());
        assertTrue(f.message().contains("did not answer in time"), f.message());
        assertTrue(Duration.ofNanos(System.nanoTime() - t0).compareTo(Duration.ofSeconds(3 + 3)) < 0);
    }
}
