package dev.nhc.cli;

import com.fasterxml.jackson.jr.ob.JSON;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code nhc run} as a process: reports, JSON, exit codes. */
class RunCommandIT {
    @TempDir
    Path dir;

    private Path config(String checks) throws Exception {
        Path f = dir.resolve("nhc.yaml");
        Files.writeString(f, "nhc: 1\nsettings: { state_dir: " + dir.resolve("state") + ", deadline: 5s, check_timeout: 2s }\nchecks:\n" + checks);
        return f;
    }

    @Test
    void passingChecksExitZeroAndVerboseShowsEachCheckWithItsDuration() throws Exception {
        Path c = config("  - { name: small, use: test.wait, with: { value: 3 }, fail: { value: \"> 5\" } }\n"
                + "  - { name: other, use: test.wait, with: { value: 1 }, warn: { value: \"> 5\" } }\n");
        NhcProcess.Result r = NhcProcess.run(dir, NhcProcess.withTestProbes(), "run", "--verbose", "-c", c.toString());
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().lines().anyMatch(l -> l.matches("PASS\\s+small\\s+test.wait\\s+\\d+ms\\s+.*")), r.out());
        assertTrue(r.out().lines().anyMatch(l -> l.matches("PASS\\s+other\\s+test.wait\\s+\\d+ms\\s+.*")), r.out());
        assertTrue(r.out().contains(": PASS (2 checks run, 0 skipped, 0 findings)"), r.out());
    }

    @Test
    void aFailingCheckExitsOneAndNamesTheCheckEntityAndValue() throws Exception {
        Path c = config("  - { name: big, use: test.wait, with: { value: 7 }, fail: { value: \"> 5\" }, remedy: reboot }\n");
        NhcProcess.Result r = NhcProcess.run(dir, NhcProcess.withTestProbes(), "run", "-c", c.toString());
        assertEquals(1, r.exit(), r.out() + r.err());
        assertTrue(r.out().startsWith("FAIL    big: value 7 > 5"), r.out());
        assertTrue(r.out().contains("7"), r.out());
        assertTrue(r.out().contains("[remedy: reboot]"), r.out());
    }

    @Test
    void jsonIsExactlyOneObjectWithTheDocumentedKeys() throws Exception {
        Path c = config("  - { name: big, use: test.wait, with: { value: 7 }, fail: { value: \"> 5\" } }\n"
                + "  - { name: ok, use: test.wait, with: { value: 1 }, fail: { value: \"> 5\" } }\n");
        NhcProcess.Result r = NhcProcess.run(dir, NhcProcess.withTestProbes(), "run", "--json", "-c", c.toString());
        assertEquals(1, r.exit(), r.err());
        assertEquals(1, r.out().strip().lines().count(), "one line, one object: " + r.out());
        Map<String, Object> m = JSON.std.mapFrom(r.out());
        assertEquals(List.of("node", "severity", "started", "duration_ms", "findings", "checks"), List.copyOf(m.keySet()));
        assertEquals("fail", m.get("severity"));
        List<?> findings = (List<?>) m.get("findings");
        assertEquals(1, findings.size());
        Map<?, ?> f = (Map<?, ?>) findings.get(0);
        assertEquals(List.of("check", "entity", "entity_kind", "entity_id", "severity", "message", "remedy", "slurm_state", "observed"), List.copyOf(f.keySet()));
        assertEquals("big", f.get("check"));
        assertEquals("fail", f.get("severity"));
        assertEquals(7, ((Map<?, ?>) f.get("observed")).get("value"));
        List<?> checks = (List<?>) m.get("checks");
        assertEquals(2, checks.size());
        Map<?, ?> first = (Map<?, ?>) checks.get(0);
        assertTrue(first.keySet().containsAll(List.of("name", "severity", "duration_ms")), first.toString());
    }

    @Test
    void onlyRunsTheNamedChecksAndRejectsUnknownNames() throws Exception {
        Path c = config("  - { name: big, use: test.wait, with: { value: 7 }, fail: { value: \"> 5\" } }\n"
                + "  - { name: ok, use: test.wait, with: { value: 1 } }\n");
        NhcProcess.Result r = NhcProcess.run(dir, NhcProcess.withTestProbes(), "run", "--only", "ok", "--json", "-c", c.toString());
        assertEquals(0, r.exit(), r.err());
        assertEquals(1, ((List<?>) JSON.std.mapFrom(r.out()).get("checks")).size());
        NhcProcess.Result bad = NhcProcess.run(dir, NhcProcess.withTestProbes(), "run", "--only", "okk", "-c", c.toString());
        assertEquals(2, bad.exit());
        assertTrue(bad.err().contains("did you mean 'ok'"), bad.err());
    }

    @Test
    void aProbeThatHangsForeverIsAbandonedAndTheProcessEndsByItsDeadline() throws Exception {
        Path c = config("  - { name: stuck, use: test.hang, timeout: 60s }\n  - { name: ok, use: test.wait, with: { value: 1 } }\n");
        NhcProcess.Result r = NhcProcess.run(dir, NhcProcess.withTestProbes(), "run", "--verbose", "-c", c.toString());
        assertEquals(0, r.exit(), "a hung host probe is unknown, which does not fail the node: " + r.out() + r.err());
        assertTrue(r.millis() < 5_000 + 10_000, "deadline 5 s (+ JVM start and slack); took " + r.millis() + " ms");
        assertTrue(r.out().contains("probe test.hang did not finish within 5s (the run's deadline); abandoned"), r.out());
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith("TIMEOUT stuck")), r.out());
    }

    @Test
    void twoRunsAtOnceOnlyOneEvaluates() throws Exception {
        Path started = dir.resolve("started");
        Path release = dir.resolve("release");
        Path c = config("  - { name: slow, use: test.wait, timeout: 60s, with: { started: " + started + ", until: " + release + " } }\n");
        Files.writeString(c, Files.readString(c).replace("deadline: 5s", "deadline: 50s"));
        Process first = NhcProcess.start(NhcProcess.withTestProbes(), dir, "run", "-c", c.toString());
        try {
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30)).until(() -> Files.exists(started));
            NhcProcess.Result second = NhcProcess.run(dir, NhcProcess.withTestProbes(), "run", "-c", c.toString());
            assertEquals(0, second.exit());
            assertTrue(second.err().contains("another run is in progress"), second.err());
            // The lock names the JVM: bin/nhc runs it as its child (it tells a JVM that cannot start from a failed check).
            String err = second.err();
            assertTrue(first.toHandle().children().anyMatch(jvm -> err.contains("pid " + jvm.pid() + ",")), err);
            assertEquals("", second.out(), "the second run evaluates nothing");
            Files.writeString(release, "go");
            assertTrue(first.waitFor(30, java.util.concurrent.TimeUnit.SECONDS));
            assertEquals(0, first.exitValue());
        } finally {
            first.destroyForcibly();
        }
    }

    @Test
    void anUnusableStateDirectoryIsNhcsOwnErrorAndDoesNothing() throws Exception {
        Path file = dir.resolve("not-a-dir");
        Files.writeString(file, "x");
        Path c = dir.resolve("c.yaml");
        Files.writeString(c, "nhc: 1\nsettings: { state_dir: " + file.resolve("state") + " }\nchecks:\n  - { name: ok, use: test.wait }\n");
        NhcProcess.Result r = NhcProcess.run(dir, NhcProcess.withTestProbes(), "run", "-c", c.toString());
        assertEquals(3, r.exit());
        assertTrue(r.err().contains("cannot use state directory"), r.err());
        assertTrue(!r.err().contains("\tat "), "no stack trace: " + r.err());
    }
}
