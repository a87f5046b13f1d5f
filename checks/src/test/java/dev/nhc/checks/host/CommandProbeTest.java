package dev.nhc.checks.host;

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

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CommandProbeTest {
    @TempDir
    Path root;

    private Observation observe(String with) throws Exception {
        ProbeResult r = new CommandProbe().probe(new TestProbeContext(root).budget(Duration.ofSeconds(5)).with(new CommandProbe().spec(), with));
        assertEquals(1, r.observations().size());
        return r.observations().get(0);
    }

    private Finding judge(String with) throws Exception {
        return Pipeline.only(new Pipeline(root, new CommandProbe()).run("- { name: cmd, use: command, timeout: 5s, with: " + with + " }"), "cmd");
    }

    @Test
    void observesTheExitCodeAndFirstLine() throws Exception {
        Observation o = observe("{ command: [/bin/sh, -c, \"echo; echo 'ib0: port down' >&2; exit 3\"] }");
        assertEquals(Entity.Kind.PROCESS, o.entity().kind());
        assertEquals("/bin/sh -c echo; echo 'ib0: port down' >&2; exit 3", o.entity().label());
        assertEquals(3L, o.get("exit_code"));
        assertEquals("ib0: port down", o.get("first_line"));
        assertEquals(false, o.get("timed_out"));
        assertNull(o.get("output_matches"), "only observed when output is given");
        assertNull(observe("{ command: [/bin/true] }").get("first_line"), "no output: no first line");
    }

    @Test
    void exitZeroPasses() throws Exception {
        Finding f = judge("{ command: [/bin/true] }");
        assertEquals(Severity.PASS, f.severity(), f.message());
        assertEquals("/bin/true", f.entity().label());
    }

    @Test
    void nonZeroFailsWithTheFirstOutputLine() throws Exception {
        Finding f = judge("{ command: [/bin/sh, -c, \"echo 'ib0: port down' >&2; echo more; exit 1\"] }");
        assertEquals(Severity.FAIL, f.severity());
        assertEquals("ib0: port down", f.message());
        assertEquals("/bin/false exited with 1 (expected 0)", judge("{ command: [/bin/false] }").message());
    }

    @Test
    void expectedExitCodeAndOutputMatch() throws Exception {
        assertEquals(Severity.PASS, judge("{ command: [/bin/false], exit_code: 1 }").severity());
        assertEquals("/bin/true exited with 0 (expected 1)", judge("{ command: [/bin/true], exit_code: 1 }").message());
        assertEquals(Severity.PASS, judge("{ command: [/bin/echo, \"State: Active\"], output: \"^State: Active$\" }").severity(),
                "^ and $ match at line ends");
        Finding f = judge("{ command: [/bin/echo, \"State: Down\"], output: \"State: Active\" }");
        assertEquals(Severity.FAIL, f.severity());
        assertEquals("output of /bin/echo State: Down does not match /State: Active/: State: Down", f.message());
        assertEquals("output of /bin/true does not match /State: Active/ (no output)",
                judge("{ command: [/bin/true], output: \"State: Active\" }").message());
    }

    /** The output may hold what users shaped; a regex that backtracks without end on it is given up on: unknown, not a miss. */
    @Test
    void anOutputRegexThatGivesUpIsUnknown() throws Exception {
        Finding f = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(Duration.ofSeconds(30),
                () -> judge("{ command: [/bin/echo, \"job: " + "a".repeat(40) + "!\"], output: \"job: (.*a){20}x\" }"));
        assertEquals(Severity.UNKNOWN, f.severity());
        assertTrue(f.message().startsWith("output of /bin/echo job: aaaa"), f.message());
        assertTrue(f.message().contains("the 'output' regex gave up (it read more than "), f.message());
    }

    @Test
    void timeoutKillsAndFails() throws Exception {
        long t0 = System.nanoTime();
        Observation o = observe("{ command: [/bin/sh, -c, \"sleep 100 & sleep 100; wait\"], timeout: 500ms }");
        assertEquals(true, o.get("timed_out"));
        assertEquals(0.5, o.get("time_limit"));
        assertTrue((Long) o.get("killed_processes") >= 1, o.toString());
        Finding f = judge("{ command: [/bin/sh, -c, \"sleep 100 & sleep 100; wait\"], timeout: 500ms }");
        assertEquals(Severity.FAIL, f.severity());
        assertTrue(f.message().matches("/bin/sh -c sleep 100 & sleep 100; wait did not finish within 0\\.5s; killed it and (1 process|[2-9] processes) it started"),
                f.message());
        assertTrue(Duration.ofNanos(System.nanoTime() - t0).compareTo(Duration.ofSeconds(8)) < 0);
    }

    @Test
    void aSiteMayWarnOnASlowCommandInsteadOfFailing() throws Exception {
        Finding f = Pipeline.only(new Pipeline(root, new CommandProbe()).run("""
                - name: cmd
                  use: command
                  with: { command: [/bin/sh, -c, "sleep 5"], timeout: 300ms }
                  fail: { exit_code: "> 1" }
                  warn: { timed_out: true }
                """), "cmd");
        assertEquals(Severity.WARN, f.severity());
        assertEquals("/bin/sh -c sleep 5: timed_out is true", f.message());
    }

    @Test
    void unstartableIsUnknown() throws Exception {
        Finding f = judge("{ command: [/no/such/tool, x] }");
        assertEquals(Severity.UNKNOWN, f.severity());
        assertTrue(f.message().startsWith("cannot run /no/such/tool x: "), f.message());
        assertEquals("/no/such/tool x", f.entity().label());
    }

    @Test
    void aBadRegexEmptyCommandOrTimeoutIsAConfigError() {
        Pipeline p = new Pipeline(root, new CommandProbe());
        ConfigException regex = assertThrows(ConfigException.class,
                () -> p.plan("- { name: cmd, use: command, with: { command: [/bin/true], output: \"([\" } }"));
        assertTrue(regex.getMessage().matches("(?s)nhc\\.yaml:\\d+:\\d+: .*'output'.*not a valid regular expression.*"), regex.getMessage());
        ConfigException empty = assertThrows(ConfigException.class,
                () -> p.plan("- { name: cmd, use: command, with: { command: [] } }"));
        assertTrue(empty.getMessage().matches("(?s)nhc\\.yaml:\\d+:\\d+: .*must name the program to run.*"), empty.getMessage());
        ConfigException code = assertThrows(ConfigException.class,
                () -> p.plan("- { name: cmd, use: command, with: { command: [/bin/true], exit_code: 300 } }"));
        assertTrue(code.getMessage().matches("(?s)nhc\\.yaml:\\d+:\\d+: .*exit code from 0 to 255.*"), code.getMessage());
        ConfigException timeout = assertThrows(ConfigException.class,
                () -> p.plan("- { name: cmd, use: command, with: { command: [/bin/true], timeout: 0s } }"));
        assertTrue(timeout.getMessage().matches("(?s)nhc\\.yaml:\\d+:\\d+: .*'timeout'.*longer than 0.*"), timeout.getMessage());
    }

    @Test
    void theCommandRunsInACleanEnvironmentFromSlashWithTheSystemPath() throws Exception {
        Finding f = judge("{ command: [/bin/sh, -c, \"echo \\\"$PATH|$LANG|$HOME|$(pwd)\\\"; exit 1\"] }");
        assertEquals("/usr/sbin:/usr/bin:/sbin:/bin|C||/", f.message(), "nothing of nhc's own environment");
    }

    @Test
    void asRootAScriptAWrapperRunsIsCheckedLikeAScriptChecksProgram() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(dev.nhc.engine.config.Ownership.runningAsRoot(),
                "only root can make a file another user owns (CI runs as root)");
        Path dir = root.toRealPath();
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path marker = dir.resolve("ran");
        Path userDir = Files.createDirectories(dir.resolve("x"));
        Path s = Files.writeString(userDir.resolve("s.sh"), "touch " + marker + "\n");
        Files.setPosixFilePermissions(s, PosixFilePermissions.fromString("rwxrwxrwx"));
        Files.setAttribute(userDir, "unix:uid", 65534);
        Observation o = observe("{ command: [/usr/bin/env, bash, " + s + "] }");
        assertTrue(Files.notExists(marker), "the payload never ran");
        assertTrue(!o.readable(), "a refused command cannot decide: " + o);
        assertEquals("refusing to run /usr/bin/env as root: directory " + userDir + " is owned by uid 65534, not root", o.problem());
    }
}
