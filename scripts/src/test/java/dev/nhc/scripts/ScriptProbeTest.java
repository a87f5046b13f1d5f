package dev.nhc.scripts;

import dev.nhc.engine.config.Ownership;
import dev.nhc.model.Finding;
import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;
import dev.nhc.probe.ProbeResult;
import dev.nhc.engine.testing.TestProbeContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
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

    private ProbeResult run(Path script, Map<String, Object> with) throws Exception {
        Map<String, Object> p = new HashMap<>(Map.of("command", List.of(script.toString()), "convention", "nhc",
                "problem", "fail", "max_output", ScriptProbe.DEFAULT_MAX_OUTPUT));
        p.putAll(with);
        return probe.probe(new TestProbeContext(tmp).params(p));
    }

    private static Finding only(ProbeResult r) {
        assertEquals(1, r.findings().size(), r.findings().toString());
        return r.findings().get(0);
    }

    @Test
    void nhcConventionExitZeroPassesOtherwiseFailsWithTheFirstLine() throws Exception {
        assertEquals(List.of(), run(script("ok.sh", "echo all good; exit 0"), Map.of()).findings());
        Finding f = only(run(script("bad.sh", "echo\necho 'ib0: port 1 is DOWN'\necho details; exit 1"), Map.of()));
        assertEquals(Severity.FAIL, f.severity());
        assertEquals("ib0: port 1 is DOWN", f.message());
    }

    @Test
    void nhcFailureWithoutOutputNamesTheExitCode() throws Exception {
        Path s = script("quiet.sh", "exit 3");
        assertEquals("script " + s + " exited with code 3", only(run(s, Map.of())).message());
    }

    @Test
    void npdConventionOkProblemUnknown() throws Exception {
        Map<String, Object> npd = Map.of("convention", "npd");
        assertEquals(List.of(), run(script("ok.sh", "echo fine; exit 0"), npd).findings());
        Finding problem = only(run(script("p.sh", "echo 'NTP unsynchronised'; exit 1"), npd));
        assertEquals(Severity.FAIL, problem.severity());
        assertEquals("NTP unsynchronised", problem.message());
        assertEquals(Severity.WARN, only(run(script("p.sh", "echo x; exit 1"), Map.of("convention", "npd", "problem", "warn"))).severity());
        Finding unknown = only(run(script("u.sh", "echo 'cannot reach chrony'; exit 2"), npd));
        assertEquals(Severity.UNKNOWN, unknown.severity());
        assertEquals("cannot reach chrony", unknown.message());
        Path odd = script("odd.sh", "exit 7");
        assertEquals("script " + odd + " exited with code 7 (npd: 0 ok, 1 problem, 2 unknown)", only(run(odd, npd)).message());
    }

    @Test
    void jsonFindingsGivePerEntityResults() throws Exception {
        Path s = script("ib.sh", "cat <<'J'\n{\"nhc_findings\": [\n"
                + " {\"entity\": \"mlx5_0/1\", \"severity\": \"fail\", \"message\": \"port DOWN\", \"remedy\": \"hardware\"},\n"
                + " {\"entity\": \"mlx5_1/1\", \"severity\": \"pass\", \"message\": \"ACTIVE\"},\n"
                + " {\"severity\": \"warn\", \"message\": \"firmware old\"}]}\nJ\nexit 1");
        ProbeResult r = run(s, Map.of());
        assertEquals(3, r.findings().size(), r.findings().toString());
        Finding down = r.findings().get(0);
        assertEquals("mlx5_0/1", down.entity());
        assertEquals(Severity.FAIL, down.severity());
        assertEquals(Remedy.HARDWARE, down.remedy());
        assertEquals(Severity.PASS, r.findings().get(1).severity());
        assertEquals("node", r.findings().get(2).entity());
    }

    @Test
    void aFailingExitCodeIsNotHiddenByJsonThatReportsLess() throws Exception {
        Path s = script("j.sh", "echo '{\"nhc_findings\": [{\"severity\": \"warn\", \"message\": \"slow\"}]}'; exit 4");
        ProbeResult r = run(s, Map.of());
        assertEquals(List.of(Severity.WARN, Severity.FAIL), r.findings().stream().map(Finding::severity).toList());
        assertEquals("script " + s + " exited with code 4", r.findings().get(1).message());
    }

    @Test
    void jsonFindingsThatCannotBeReadAreUnknown() throws Exception {
        Finding f = only(run(script("j.sh", "echo '{\"nhc_findings\": [{\"entity\": \"a\", \"severity\": \"fail\"}]}'"), Map.of()));
        assertEquals(Severity.UNKNOWN, f.severity());
        assertTrue(f.message().endsWith("printed nhc_findings JSON nhc cannot read: finding 1 has no message"), f.message());
        Finding g = only(run(script("k.sh", "echo '{\"nhc_findings\": [{\"severity\": \"fail\", \"message\": \"x\",,]}'"), Map.of()));
        assertEquals(Severity.UNKNOWN, g.severity());
        assertTrue(g.message().contains("cannot read: Unexpected character"), g.message());
    }

    @Test
    void environmentIsCleanExceptForConfiguredVariables() throws Exception {
        Path s = script("env.sh", "echo \"PATH=$PATH HOME=${HOME:-unset} SITE=$SITE\"; exit 1");
        Finding f = only(run(s, Map.of("env", Map.of("SITE", "cluster-a"))));
        assertEquals("PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=unset SITE=cluster-a", f.message());
    }

    @Test
    void argumentsReachTheScriptVerbatimWithoutAShell() throws Exception {
        Path s = script("args.sh", "printf '%s|' \"$@\"; exit 1");
        Finding f = only(run(s, Map.of("command", List.of(s.toString(), "$(id)", "a b", ";", "*"))));
        assertEquals("$(id)|a b|;|*|", f.message());
    }

    @Test
    void hangingScriptIsKilledAtItsTimeout() throws Exception {
        long t0 = System.nanoTime();
        Finding f = only(run(script("hang.sh", "sleep 600"), Map.of("timeout", Duration.ofMillis(500))));
        assertTrue(System.nanoTime() - t0 < Duration.ofSeconds(5).toNanos(), "took longer than the 0.5 s timeout + slack");
        assertEquals(Severity.UNKNOWN, f.severity());
        assertTrue(f.message().contains(" did not finish within 0.5 s; killed it"), f.message());
    }

    @Test
    void megabytesOfOutputAreCappedAndDoNotBlockTheScript() throws Exception {
        Path s = script("chatty.sh", "head -c 20000000 /dev/zero | tr '\\0' a; echo; exit 0");
        ProbeResult r = run(s, Map.of("max_output", 65536L, "timeout", Duration.ofSeconds(20)));
        assertEquals(List.of(), r.findings());
        assertEquals(20000001L, r.observations().get(0).get("output_bytes"));
        assertEquals(0L, r.observations().get(0).get("exit_code"));
    }

    @Test
    void childrenThatOutliveTheScriptAreKilled() throws Exception {
        Path pidFile = tmp.resolve("child.pid");
        Path s = script("fork.sh", "sleep 600 </dev/null >/dev/null 2>&1 &\necho $! > " + pidFile + "\nexit 0");
        ProbeResult r = run(s, Map.of());
        assertEquals(List.of(), r.findings());
        long pid = Long.parseLong(Files.readString(pidFile).strip());
        await().atMost(Duration.ofSeconds(5)).until(() -> ProcessHandle.of(pid).map(h -> !h.isAlive()).orElse(true));
        assertTrue((Long) r.observations().get(0).get("killed_processes") >= 1);
    }

    @Test
    void missingScriptIsUnknown() throws Exception {
        Finding f = only(run(tmp.resolve("nope.sh"), Map.of()));
        assertEquals(Severity.UNKNOWN, f.severity());
        assertEquals("script " + tmp.resolve("nope.sh") + " not found or not executable", f.message());
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
        ScriptProbe asRoot = new ScriptProbe(() -> true);
        Map<String, Object> p = Map.of("command", List.of(s.toString()), "convention", "nhc", "max_output", 1024L);
        Finding f = only(asRoot.probe(new TestProbeContext(tmp).params(p)));
        assertEquals(Severity.UNKNOWN, f.severity());
        // not root, the first thing on the way that is not root's is the test's own temp directory
        String why = root ? s.toRealPath() + " is owned by uid 65534, not root"
                : "directory " + tmp.toRealPath() + " is owned by uid " + Files.getAttribute(tmp, "unix:uid") + ", not root";
        assertEquals("refusing to run " + s + " as root: " + why, f.message());
        assertTrue(Files.notExists(marker), "the refused script must not have run");
    }

    @Test
    void asRootTheScriptAnInterpreterRunsIsCheckedToo() throws Exception {
        Path s = script("payload.sh", "exit 0");
        if (Ownership.runningAsRoot()) {
            Files.setAttribute(s, "unix:uid", 65534);
        }
        ScriptProbe asRoot = new ScriptProbe(() -> true);
        Map<String, Object> p = Map.of("command", List.of("/bin/sh", s.toString()), "convention", "nhc", "max_output", 1024L);
        Finding f = only(asRoot.probe(new TestProbeContext(tmp).params(p)));
        String why = Ownership.runningAsRoot() ? s.toRealPath() + " is owned by uid 65534" : "directory " + tmp.toRealPath() + " is owned by uid";
        assertTrue(f.message().startsWith("refusing to run /bin/sh as root: " + why), f.message());
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
        ScriptProbe asRoot = new ScriptProbe(() -> true);
        for (List<String> command : List.of(List.of("/usr/bin/env", "bash", s.toString()), List.of("awk", "-f", prog.toString()))) {
            Finding f = only(asRoot.probe(new TestProbeContext(tmp).params(Map.of("command", command, "convention", "nhc", "max_output", 1024L))));
            assertEquals(Severity.UNKNOWN, f.severity());
            assertEquals("refusing to run " + command.get(0) + " as root: directory " + userDir.toRealPath() + " is owned by uid 65534, not root",
                    f.message());
        }
        assertTrue(Files.notExists(marker), "the payload never ran");
    }

    @Test
    void asRootAGroupWritableRootScriptIsRefused() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(Ownership.runningAsRoot(), "only root can make a root-owned file to test the mode check");
        Path s = script("gw.sh", "exit 0");
        Files.setPosixFilePermissions(s, PosixFilePermissions.fromString("rwxrwxr-x"));
        Finding f = only(new ScriptProbe(() -> true).probe(new TestProbeContext(tmp)
                .params(Map.of("command", List.of(s.toString()), "convention", "nhc", "max_output", 1024L))));
        assertEquals("refusing to run " + s + " as root: " + s.toRealPath() + " is writable by its group (mode 775)", f.message());
    }
}
