package dev.nhc.checks.host;

import dev.nhc.checks.Scripts;
import dev.nhc.model.Finding;
import dev.nhc.model.Severity;
import dev.nhc.probe.ProbeResult;
import dev.nhc.engine.testing.TestProbeContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
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

    private ProbeResult run(Map<String, Object> with) throws Exception {
        return new SystemdUnitProbe().probe(new TestProbeContext(bin).budget(Duration.ofSeconds(3)).params(with));
    }

    @Test
    void activeUnitPassesAndTheCallIsArgvOnly() throws Exception {
        ProbeResult r = run(Map.of("unit", "sshd.service", "systemctl", fakeSystemctl().toString()));
        assertTrue(r.findings().isEmpty(), r.findings().toString());
        assertEquals("active", r.observations().get(0).get("active_state"));
        assertEquals(true, r.observations().get(0).get("active"));
        assertEquals("show -p ActiveState,SubState,LoadState -- sshd.service", Files.readString(bin.resolve("args")).strip());
    }

    @Test
    void failedInactiveOrMissingUnitsFail() throws Exception {
        String sc = fakeSystemctl().toString();
        Finding failed = run(Map.of("unit", "slurmd.service", "systemctl", sc)).findings().get(0);
        assertEquals(Severity.FAIL, failed.severity());
        assertEquals("unit slurmd.service is failed (failed), expected active", failed.message());
        assertEquals(Severity.FAIL, run(Map.of("unit", "gdm.service", "systemctl", sc)).findings().get(0).severity());
        assertTrue(run(Map.of("unit", "nope.service", "systemctl", sc)).findings().get(0).message().contains("not found"));
        assertEquals(Severity.WARN, run(Map.of("unit", "nvidia-fabricmanager.service", "systemctl", sc)).findings().get(0).severity());
    }

    @Test
    void inactiveExpected() throws Exception {
        String sc = fakeSystemctl().toString();
        assertTrue(run(Map.of("unit", "gdm.service", "state", "inactive", "systemctl", sc)).findings().isEmpty());
        assertEquals(Severity.FAIL, run(Map.of("unit", "sshd.service", "state", "inactive", "systemctl", sc)).findings().get(0).severity());
    }

    @Test
    void missingOrBrokenSystemctlIsUnknownWithTheReason() throws Exception {
        Finding missing = run(Map.of("unit", "sshd.service", "systemctl", bin.resolve("no-systemctl").toString())).findings().get(0);
        assertEquals(Severity.UNKNOWN, missing.severity());
        assertTrue(missing.message().startsWith("systemctl not found"), missing.message());
        Path broken = Scripts.write(bin, "systemctl2", "echo 'System has not been booted with systemd as init system (PID 1). Can'\"'\"'t operate.' >&2; exit 1");
        Finding f = run(Map.of("unit", "sshd.service", "systemctl", broken.toString())).findings().get(0);
        assertEquals(Severity.UNKNOWN, f.severity());
        assertTrue(f.message().contains("System has not been booted with systemd"), f.message());
    }

    @Test
    void aHangingSystemctlIsKilledWithinTheCheckTime() throws Exception {
        long t0 = System.nanoTime();
        Finding f = run(Map.of("unit", "hang.service", "systemctl", fakeSystemctl().toString())).findings().get(0);
        assertEquals(Severity.UNKNOWN, f.severity());
        assertTrue(f.message().contains("did not answer in time"), f.message());
        assertTrue(Duration.ofNanos(System.nanoTime() - t0).compareTo(Duration.ofSeconds(3 + 3)) < 0);
    }
}
