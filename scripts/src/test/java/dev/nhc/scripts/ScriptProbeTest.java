package dev.nhc.scripts;

import dev.nhc.engine.config.ConfigException;
import dev.nhc.engine.config.Ownership;
import dev.nhc.engine.testing.TestProbeContext;
import dev.nhc.model.Entity;
import dev.nhc.model.Finding;
import dev.nhc.model.Observation;
import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;
import dev.nhc.probe.ProbeResult;
import dev.nhc.rules.testing.Pipeline;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ScriptProbeTest {
    @TempDir
    Path tmp;

    /** Most tests are about behaviour, not ownership: they run as if nhc were not root. */
    private final ScriptProbe probe = new ScriptProbe(() -> false);

    private Path script(String name, String body) throws Exception {
        Path p = tmp.resolve(name);
        Files.writeString(p, "#!/bin/sh\n" + body + "\n");
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        return p;
    }

    /** What the probe observes for a check with {@code command: [script]} and the further with: keys {@code more}. */
    private ProbeResult observe(ScriptProbe p, Path script, String more) throws Exception {
        ProbeResult r = p.probe(new TestProbeContext(tmp).with(p.spec(), "{ command: [" + script + "]" + more + " }"));
        return r;
    }

    /** The one observation of the whole script (on the node), and no other. */
    private Observation run(Path script, String more) throws Exception {
        ProbeResult r = observe(probe, script, more);
        assertEquals(1, r.observations().size(), r.observations().toString());
        return r.observations().get(0);
    }

    /** The findings of a check running {@code script}, judged as nhc run does. */
    private List<Finding> judge(Path script, String more) throws Exception {
        return Pipeline.findings(new Pipeline(tmp, probe).run("- { name: s, use: script, timeout: 20s, with: { command: [" + script + "]"
                + more + " } }"), "s");
    }

    private Finding judgeOne(Path script, String more) throws Exception {
        List<Finding> f = judge(script, more);
        assertEquals(1, f.size(), f.toString());
        return f.get(0);
    }

    @Test
    void observesTheExitCodeAndFirstLine() throws Exception {
        Path s = script("bad.sh", "echo\necho 'ib0: port 1 is DOWN'\necho details; exit 1");
        Observation o = run(s, "");
        assertEquals(Entity.NODE, o.entity());
        assertEquals(1L, o.get("exit_code"));
        assertEquals("ib0: port 1 is DOWN", o.get("first_line"));
        assertEquals("none", o.get("worst_reported"));
        assertEquals(s.toString(), o.get("program"));
        assertEquals(false, o.get("timed_out"));
        assertNull(run(script("quiet.sh", "exit 0"), "").get("first_line"));
    }

    @Test
    void nhcConventionExitZeroPassesOtherwiseFailsWithTheFirstLine() throws Exception {
        assertEquals(Severity.PASS, judgeOne(script("ok.sh", "echo all good; exit 0"), "").severity());
        Finding f = judgeOne(script("bad.sh", "echo\necho 'ib0: port 1 is DOWN'\necho details; exit 1"), "");
        assertEquals(Severity.FAIL, f.severity());
        assertEquals("ib0: port 1 is DOWN", f.message());
        assertEquals(Entity.NODE, f.entity());
    }

    @Test
    void nhcFailureWithoutOutputNamesTheExitCode() throws Exception {
        Path s = script("quiet.sh", "exit 3");
        assertEquals("script " + s + " exited with code 3", judgeOne(s, "").message());
    }

    @Test
    void npdConventionOkProblemUnknown() throws Exception {
        String npd = ", convention: npd";
        assertEquals(Severity.PASS, judgeOne(script("ok.sh", "echo fine; exit 0"), npd).severity());
        Finding problem = judgeOne(script("p.sh", "echo 'NTP unsynchronised'; exit 1"), npd);
        assertEquals(Severity.FAIL, problem.severity());
        assertEquals("NTP unsynchronised", problem.message());
        Finding warn = judgeOne(script("p.sh", "echo x; exit 1"), npd + ", problem: warn");
        assertEquals(Severity.WARN, warn.severity());
        assertEquals("x", warn.message());
        Finding unknown = judgeOne(script("u.sh", "echo 'cannot reach chrony'; exit 2"), npd);
        assertEquals(Severity.UNKNOWN, unknown.severity());
        assertEquals("cannot reach chrony", unknown.message());
        Path odd = script("odd.sh", "exit 7");
        assertEquals("script " + odd + " exited with code 7 (npd: 0 ok, 1 problem, 2 unknown)", judgeOne(odd, npd).message());
        Path quiet = script("q.sh", "exit 1");
        assertEquals("script " + quiet + " exited with code 1", judgeOne(quiet, npd + ", problem: warn").message());
    }

    @Test
    void jsonFindingsAreObservedPerEntity() throws Exception {
        Path s = script("ib.sh", "cat <<'J'\n{\"nhc_findings\": [\n"
                + " {\"entity\": \"mlx5_0/1\", \"severity\": \"fail\", \"message\": \"port DOWN\", \"remedy\": \"hardware\"},\n"
                + " {\"entity\": \"GPU 3\", \"severity\": \"PASS\", \"message\": \"ACTIVE\"},\n"
                + " {\"severity\": \"warn\", \"message\": \"firmware old\"}]}\nJ\nexit 1");
        List<Observation> o = observe(probe, s, "").observations();
        assertEquals(4, o.size(), o.toString());
        assertEquals(Entity.of(Entity.Kind.OTHER, "mlx5_0/1"), o.get(0).entity());
        assertEquals("fail", o.get(0).get("reported_severity"));
        assertEquals("port DOWN", o.get(0).get("message"));
        assertEquals("hardware", o.get(0).get("remedy"));
        assertEquals(Entity.gpu(3, null), o.get(1).entity());
        assertEquals("pass", o.get(1).get("reported_severity"));
        assertNull(o.get(1).get("remedy"));
        assertEquals(Entity.NODE, o.get(2).entity());
        Observation whole = o.get(3);
        assertEquals("fail", whole.get("worst_reported"));
        assertNull(whole.get("first_line"), "the first line of JSON is no message");
    }

    @Test
    void jsonFindingsAreJudgedAsTheScriptSaysAndItsExitCodeDoesNotRepeatThem() throws Exception {
        Path s = script("ib.sh", "cat <<'J'\n{\"nhc_findings\": [\n"
                + " {\"entity\": \"mlx5_0/1\", \"severity\": \"fail\", \"message\": \"port DOWN\", \"remedy\": \"hardware\"},\n"
                + " {\"entity\": \"mlx5_1/1\", \"severity\": \"pass\", \"message\": \"ACTIVE\"},\n"
                + " {\"severity\": \"warn\", \"message\": \"firmware old\"}]}\nJ\nexit 1");
        List<Finding> f = judge(s, "");
        assertEquals(List.of("mlx5_0/1", "mlx5_1/1", "node", "node"), f.stream().map(x -> x.entity().label()).toList());
        assertEquals(List.of(Severity.FAIL, Severity.PASS, Severity.WARN, Severity.PASS), f.stream().map(Finding::severity).toList());
        assertEquals("port DOWN", f.get(0).message());
        assertEquals(Remedy.HARDWARE, f.get(0).remedy());
        assertEquals("firmware old", f.get(2).message());
        assertEquals(Remedy.NONE, f.get(2).remedy());
    }

    @Test
    void aFailingExitCodeIsNotHiddenByJsonThatReportsLess() throws Exception {
        Path s = script("j.sh", "echo '{\"nhc_findings\": [{\"severity\": \"warn\", \"message\": \"slow\"}]}'; exit 4");
        List<Finding> f = judge(s, "");
        assertEquals(List.of(Severity.WARN, Severity.FAIL), f.stream().map(Finding::severity).toList());
        assertEquals("slow", f.get(0).message());
        assertEquals("script " + s + " exited with code 4", f.get(1).message());
        // npd: a reported warning already says as much as exit 1 with problem: warn, not as much as with problem: fail
        Path one = script("j1.sh", "echo '{\"nhc_findings\": [{\"severity\": \"warn\", \"message\": \"slow\"}]}'; exit 1");
        assertEquals(List.of(Severity.WARN, Severity.PASS),
                judge(one, ", convention: npd, problem: warn").stream().map(Finding::severity).toList());
        assertEquals(List.of(Severity.WARN, Severity.FAIL),
                judge(one, ", convention: npd").stream().map(Finding::severity).toList());
    }

    @Test
    void aSiteJudgesTheScriptsReportsItsOwnWay() throws Exception {
        Path s = script("ib.sh", "echo '{\"nhc_findings\": [{\"entity\": \"mlx5_0/1\", \"severity\": \"warn\", \"message\": \"rate 200 Gb/s\"},"
                + " {\"entity\": \"mlx5_1/1\", \"severity\": \"fail\", \"message\": \"port DOWN\"}]}'; exit 1");
        Pipeline p = new Pipeline(tmp, probe);
        // warnings count as failures here; the message says which port
        List<Finding> strict = Pipeline.findings(p.run("- name: s\n  use: script\n  with: { command: [" + s + "] }\n"
                + "  fail: { reported_severity: \"~ ^(warn|fail)$\" }\n  message: \"{entity}: {message}\"\n"), "s");
        assertEquals(List.of(Severity.FAIL, Severity.FAIL, Severity.PASS), strict.stream().map(Finding::severity).toList());
        assertEquals("mlx5_0/1: rate 200 Gb/s", strict.get(0).message());
        // warn: none drops the script's warnings, its failures stay
        List<Finding> quiet = Pipeline.findings(p.run("- { name: s, use: script, with: { command: [" + s + "] }, warn: none }"), "s");
        assertEquals(List.of(Severity.PASS, Severity.FAIL, Severity.PASS), quiet.stream().map(Finding::severity).toList());
    }

    @Test
    void jsonFindingsThatCannotBeReadAreUnknown() throws Exception {
        Finding f = judgeOne(script("j.sh", "echo '{\"nhc_findings\": [{\"entity\": \"a\", \"severity\": \"fail\"}]}'"), "");
        assertEquals(Severity.UNKNOWN, f.severity());
        assertTrue(f.message().endsWith("printed nhc_findings JSON nhc cannot read: finding 1 has no message"), f.message());
        Finding g = judgeOne(script("k.sh", "echo '{\"nhc_findings\": [{\"severity\": \"fail\", \"message\": \"x\",,]}'"), "");
        assertEquals(Severity.UNKNOWN, g.severity());
        assertTrue(g.message().contains("cannot read: Unexpected character"), g.message());
        Finding h = judgeOne(script("l.sh", "echo '{\"nhc_findings\": [{\"severity\": \"bad\", \"message\": \"x\"}]}'"), "");
        assertTrue(h.message().endsWith("finding 1: unknown severity 'bad' (expected pass, warn, fail or unknown)"), h.message());
    }

    @Test
    void environmentIsCleanExceptForConfiguredVariables() throws Exception {
        Path s = script("env.sh", "echo \"PATH=$PATH HOME=${HOME:-unset} SITE=$SITE\"; exit 1");
        assertEquals("PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=unset SITE=cluster-a", run(s, ", env: { SITE: cluster-a }").get("first_line"));
    }

    @Test
    void argumentsReachTheScriptVerbatimWithoutAShell() throws Exception {
        Path s = script("args.sh", "printf '%s|' \"$@\"; exit 1");
        ProbeResult r = probe.probe(new TestProbeContext(tmp).with(probe.spec(),
                "{ command: [" + s + ", \"$(id)\", \"a b\", \";\", \"*\"] }"));
        assertEquals("$(id)|a b|;|*|", r.observations().get(0).get("first_line"));
    }

    /** Killed a little before the check's deadline, but named by the limit as configured: "within 1s", not "within 0.798s". */
    @Test
    void aScriptKilledAtTheChecksTimeoutNamesThatTimeout() throws Exception {
        Path hang = script("hang.sh", "sleep 600");
        Finding f = Pipeline.only(new Pipeline(tmp, probe).run("- { name: s, use: script, timeout: 1s, with: { command: [" + hang + "] } }"), "s");
        assertEquals(Severity.UNKNOWN, f.severity());
        assertTrue(f.message().matches("script .*/hang\\.sh did not finish within 1s; killed it and \\d+ process(es)? it started"), f.message());
        assertEquals(1.0, f.observed().get("time_limit"));
    }

    @Test
    void hangingScriptIsKilledAtItsTimeout() throws Exception {
        long t0 = System.nanoTime();
        Finding f = judgeOne(script("hang.sh", "sleep 600"), ", timeout: 500ms");
        assertTrue(System.nanoTime() - t0 < Duration.ofSeconds(5).toNanos(), "took longer than the 0.5 s timeout + slack");
        assertEquals(Severity.UNKNOWN, f.severity());
        assertTrue(f.message().matches("script .*/hang\\.sh did not finish within 0\\.5s; killed it and \\d+ process(es)? it started"), f.message());
        assertEquals(true, f.observed().get("timed_out"));
    }

    @Test
    void megabytesOfOutputAreCappedAndDoNotBlockTheScript() throws Exception {
        Observation o = run(script("chatty.sh", "head -c 20000000 /dev/zero | tr '\\0' a; echo; exit 0"), ", max_output: 64KiB, timeout: 20s");
        assertEquals(20000001L, o.get("output_bytes"));
        assertEquals(0L, o.get("exit_code"));
    }

    @Test
    void childrenThatOutliveTheScriptAreKilled() throws Exception {
        Path pidFile = tmp.resolve("child.pid");
        Observation o = run(script("fork.sh", "sleep 600 </dev/null >/dev/null 2>&1 &\necho $! > " + pidFile + "\nexit 0"), "");
        long pid = Long.parseLong(Files.readString(pidFile).strip());
        await().atMost(Duration.ofSeconds(5)).until(() -> ProcessHandle.of(pid).map(h -> !h.isAlive()).orElse(true));
        assertTrue((Long) o.get("killed_processes") >= 1);
    }

    @Test
    void missingScriptIsUnknown() throws Exception {
        Finding f = judgeOne(tmp.resolve("nope.sh"), "");
        assertEquals(Severity.UNKNOWN, f.severity());
        assertEquals("script " + tmp.resolve("nope.sh") + " not found or not executable", f.message());
    }

    @Test
    void badParametersAreConfigErrors() {
        Pipeline p = new Pipeline(tmp, probe);
        for (String[] c : new String[][]{
                {"{ command: [/bin/true], convention: lbnl }", "'lbnl' is not one of nhc, npd"},
                {"{ command: [/bin/true], convention: npd, problem: error }", "'error' is not one of fail, warn"},
                {"{ command: [/bin/true], env: { \"A=B\": x } }", "variable 'A=B' has a name a process environment cannot hold"},
                {"{ command: [/bin/true], env: { A: [1, 2] } }", "variable 'A' needs a single value"},
                {"{ command: [/bin/true], timeout: 0s }", "must be longer than 0"},
                {"{ command: [/bin/true], max_output: 1TiB }", "must be from 1 byte to 64 MiB"},
                {"{ command: [] }", "must name the program to run"}}) {
            ConfigException e = assertThrows(ConfigException.class, () -> p.plan("- { name: s, use: script, with: " + c[0] + " }"), c[0]);
            assertTrue(e.getMessage().matches("(?s)nhc\\.yaml:\\d+:\\d+: .*") && e.getMessage().contains(c[1]), c[0] + " → " + e.getMessage());
        }
    }

    /** The reason a check running {@code argv} as root is refused (an unreadable node), and that it is one. */
    private String refusal(String argv) throws Exception {
        ProbeResult r = new ScriptProbe(() -> true).probe(new TestProbeContext(tmp).with(probe.spec(), "{ command: " + argv + " }"));
        assertEquals(1, r.observations().size());
        Observation o = r.observations().get(0);
        assertEquals(Entity.NODE, o.entity());
        assertTrue(!o.readable(), "refused: the check cannot decide");
        return o.problem();
    }

    @Test
    void asRootAScriptANonRootUserCanWriteIsRefused() throws Exception {
        Path marker = tmp.resolve("ran");
        Path s = script("evil.sh", "touch " + marker + "; exit 0");
        boolean root = Ownership.runningAsRoot();
        if (root) {
            Files.setAttribute(s, "unix:uid", 65534);
        }
        // as root: the real check against a nobody-owned file; otherwise the current user's own file, with nhc told it is root
        // not root, the first thing on the way that is not root's is the test's own temp directory
        String why = root ? s.toRealPath() + " is owned by uid 65534, not root"
                : "directory " + tmp.toRealPath() + " is owned by uid " + Files.getAttribute(tmp, "unix:uid") + ", not root";
        assertEquals("refusing to run " + s + " as root: " + why, refusal("[" + s + "]"));
        assertTrue(Files.notExists(marker), "the refused script must not have run");
    }

    @Test
    void asRootTheScriptAnInterpreterRunsIsCheckedToo() throws Exception {
        Path s = script("payload.sh", "exit 0");
        if (Ownership.runningAsRoot()) {
            Files.setAttribute(s, "unix:uid", 65534);
        }
        String why = refusal("[/bin/sh, " + s + "]");
        String expected = Ownership.runningAsRoot() ? s.toRealPath() + " is owned by uid 65534" : "directory " + tmp.toRealPath() + " is owned by uid";
        assertTrue(why.startsWith("refusing to run /bin/sh as root: " + expected), why);
    }

    @Test
    void asRootAScriptAWrapperOrInterpreterIsGivenAnywhereInItsArgumentsIsCheckedToo() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(Ownership.runningAsRoot(), "only root can make a file another user owns (CI runs as root)");
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path marker = tmp.resolve("ran");
        Path userDir = Files.createDirectories(tmp.resolve("x"));
        Path s = script("x/s.sh", "touch " + marker);
        Files.setPosixFilePermissions(s, PosixFilePermissions.fromString("rwxrwxrwx"));
        Path prog = Files.writeString(userDir.resolve("prog.awk"), "BEGIN { system(\"touch " + marker + "\") }\n");
        Files.setAttribute(userDir, "unix:uid", 65534);
        for (String command : List.of("[/usr/bin/env, bash, " + s + "]", "[awk, -f, " + prog + "]")) {
            String program = command.substring(1, command.indexOf(','));
            assertEquals("refusing to run " + program + " as root: directory " + userDir.toRealPath() + " is owned by uid 65534, not root",
                    refusal(command));
        }
        assertTrue(Files.notExists(marker), "the payload never ran");
    }

    @Test
    void asRootAGroupWritableRootScriptIsRefused() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(Ownership.runningAsRoot(), "only root can make a root-owned file to test the mode check");
        Path s = script("gw.sh", "exit 0");
        Files.setPosixFilePermissions(s, PosixFilePermissions.fromString("rwxrwxr-x"));
        assertEquals("refusing to run " + s + " as root: " + s.toRealPath() + " is writable by its group (mode 775)", refusal("[" + s + "]"));
    }
}
