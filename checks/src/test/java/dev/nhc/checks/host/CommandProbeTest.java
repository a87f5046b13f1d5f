package dev.nhc.checks.host;

import dev.nhc.model.Finding;
import dev.nhc.model.Severity;
import dev.nhc.probe.ProbeResult;
import dev.nhc.engine.testing.TestProbeContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CommandProbeTest {
    @TempDir
    Path root;

    private ProbeResult run(Map<String, Object> with) {
        try {
            return new CommandProbe().probe(new TestProbeContext(root).budget(Duration.ofSeconds(5)).params(with));
        } catch (InterruptedException e) {
            throw new AssertionError("the test thread was interrupted", e);
        }
    }

    @Test
    void exitZeroPasses() {
        ProbeResult r = run(Map.of("command", List.of("/bin/true")));
        assertTrue(r.findings().isEmpty());
        assertEquals(0L, r.observations().get(0).get("exit_code"));
    }

    @Test
    void nonZeroFailsWithTheFirstOutputLine() {
        Finding f = run(Map.of("command", List.of("/bin/sh", "-c", "echo 'ib0: port down' >&2; echo more; exit 1"))).findings().get(0);
        assertEquals(Severity.FAIL, f.severity());
        assertEquals("ib0: port down", f.message());
        assertEquals("/bin/false exited with 1", run(Map.of("command", List.of("/bin/false"))).findings().get(0).message());
    }

    @Test
    void expectedExitCodeAndOutputMatch() {
        assertTrue(run(Map.of("command", List.of("/bin/false"), "exit_code", 1L)).findings().isEmpty());
        assertTrue(run(Map.of("command", List.of("/bin/echo", "State: Active"), "output", "^State: Active$")).findings().isEmpty());
        Finding f = run(Map.of("command", List.of("/bin/echo", "State: Down"), "output", "State: Active")).findings().get(0);
        assertEquals(Severity.FAIL, f.severity());
        assertEquals("output of /bin/echo does not match /State: Active/: State: Down", f.message());
    }

    @Test
    void timeoutKillsAndFails() {
        long t0 = System.nanoTime();
        ProbeResult r = run(Map.of("command", List.of("/bin/sh", "-c", "sleep 100 & sleep 100; wait"), "timeout", Duration.ofMillis(500)));
        Finding f = r.findings().get(0);
        assertEquals(Severity.FAIL, f.severity());
        assertTrue(f.message().contains("did not finish within 500ms; killed it and"), f.message());
        assertEquals(true, r.observations().get(0).get("timed_out"));
        assertTrue(Duration.ofNanos(System.nanoTime() - t0).compareTo(Duration.ofSeconds(4)) < 0);
    }

    @Test
    void unstartableIsUnknownAndBadRegexSaysSo() {
        Finding f = run(Map.of("command", List.of("/no/such/tool", "x"))).findings().get(0);
        assertEquals(Severity.UNKNOWN, f.severity());
        assertTrue(f.message().startsWith("cannot run /no/such/tool x"), f.message());
        Finding re = run(Map.of("command", List.of("/bin/true"), "output", "([")).findings().get(0);
        assertEquals(Severity.UNKNOWN, re.severity());
        assertTrue(re.message().contains("'output' is not a valid regular expression"), re.message());
    }

    @Test
    void theCommandRunsInACleanEnvironmentFromSlashWithTheSystemPath() {
        ProbeResult r = run(Map.of("command", List.of("/bin/sh", "-c", "echo \"$PATH|$LANG|$HOME|$(pwd)\"; exit 1")));
        assertEquals("/usr/sbin:/usr/bin:/sbin:/bin|C||/", r.findings().get(0).message(), "nothing of nhc's own environment");
    }

    @Test
    void asRootAScriptAWrapperRunsIsCheckedLikeAScriptChecksProgram() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(dev.nhc.engine.config.Ownership.runningAsRoot(),
                "only root can make a file another user owns (CI runs as root)");
        Path dir = root.toRealPath();
        java.nio.file.Files.setPosixFilePermissions(dir, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        Path marker = dir.resolve("ran");
        Path userDir = java.nio.file.Files.createDirectories(dir.resolve("x"));
        Path s = java.nio.file.Files.writeString(userDir.resolve("s.sh"), "touch " + marker + "\n");
        java.nio.file.Files.setPosixFilePermissions(s, java.nio.file.attribute.PosixFilePermissions.fromString("rwxrwxrwx"));
        java.nio.file.Files.setAttribute(userDir, "unix:uid", 65534);
        List<Finding> findings = run(Map.of("command", List.of("/usr/bin/env", "bash", s.toString()))).findings();
        assertTrue(java.nio.file.Files.notExists(marker), "the payload never ran");
        assertEquals(1, findings.size(), findings.toString());
        assertEquals(Severity.UNKNOWN, findings.get(0).severity());
        assertEquals("refusing to run /usr/bin/env as root: directory " + userDir + " is owned by uid 65534, not root", findings.get(0).message());
    }
}
