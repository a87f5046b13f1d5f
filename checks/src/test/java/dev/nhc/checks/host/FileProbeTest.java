package dev.nhc.checks.host;

import dev.nhc.model.Finding;
import dev.nhc.model.Observation;
import dev.nhc.model.Severity;
import dev.nhc.probe.ProbeResult;
import dev.nhc.engine.testing.TestProbeContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FileProbeTest {
    @TempDir
    Path root;

    private ProbeResult run(Map<String, Object> with) {
        return new FileProbe().probe(new TestProbeContext(root).params(with));
    }

    private Path file(String text, String perms) throws Exception {
        Path p = root.resolve("etc/nhc/marker");
        Files.createDirectories(p.getParent());
        Files.writeString(p, text);
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(perms));
        return p;
    }

    @Test
    void observesAndPassesWhenAllHold() throws Exception {
        file("healthy=yes\n", "rw-r--r--");
        String me = Files.getOwner(root).getName();
        ProbeResult r = run(Map.of("path", "/etc/nhc/marker", "mode", "0644", "owner", me, "max_age", Duration.ofHours(1), "contains", "^healthy=yes$"));
        assertTrue(r.findings().isEmpty(), r.findings().toString());
        Observation o = r.observations().get(0);
        assertEquals(true, o.get("exists"));
        assertEquals("0644", o.get("mode"));
        assertEquals(me, o.get("owner"));
        assertEquals(12L, o.get("size"));
        assertTrue((Long) o.get("age_seconds") < 3600);
    }

    @Test
    void eachMismatchIsNamed() throws Exception {
        Path p = file("healthy=no\n", "rwxrwxrwx");
        Files.setLastModifiedTime(p, FileTime.from(Instant.now().minus(Duration.ofDays(2))));
        Finding f = run(Map.of("path", "/etc/nhc/marker", "mode", "644", "owner", "4242", "max_age", Duration.ofHours(1),
                "contains", "healthy=yes")).findings().get(0);
        assertEquals(Severity.FAIL, f.severity());
        assertTrue(f.message().startsWith("/etc/nhc/marker: mode 0777, expected 0644; owner "), f.message());
        assertTrue(f.message().contains("expected 4242"), f.message());
        assertTrue(f.message().contains("more than 3600s"), f.message());
        assertTrue(f.message().endsWith("does not contain /healthy=yes/"), f.message());
    }

    @Test
    void existence() throws Exception {
        assertEquals("/etc/nhc/marker does not exist", run(Map.of("path", "/etc/nhc/marker")).findings().get(0).message());
        assertTrue(run(Map.of("path", "/etc/nhc/marker", "exists", false)).findings().isEmpty());
        file("x", "rw-------");
        assertEquals("/etc/nhc/marker exists but should not", run(Map.of("path", "/etc/nhc/marker", "exists", false)).findings().get(0).message());
    }

    @Test
    void badModeOrRegexIsUnknown() throws Exception {
        file("x", "rw-------");
        assertEquals(Severity.UNKNOWN, run(Map.of("path", "/etc/nhc/marker", "mode", "rw-r--r--")).findings().get(0).severity());
        assertEquals(Severity.UNKNOWN, run(Map.of("path", "/etc/nhc/marker", "contains", "(")).findings().get(0).severity());
        assertEquals(0644L, FileProbe.octal("0644"));
        assertEquals(04755L, FileProbe.octal("4755"));
    }
}
