package dev.nhc.checks.host;

import dev.nhc.engine.config.ConfigException;
import dev.nhc.engine.testing.TestProbeContext;
import dev.nhc.model.Entity;
import dev.nhc.model.Finding;
import dev.nhc.model.Observation;
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

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ProcessProbeTest {
    @TempDir
    Path root;
    private TestProbeContext ctx;
    private Pipeline pipeline;

    @BeforeEach
    void tree() throws IOException {
        ctx = new TestProbeContext(root);
        pipeline = new Pipeline(root, new ProcessProbe());
        ctx.write("/etc/passwd", "root:x:0:0:root:/root:/bin/bash\nslurm:x:64030:64030::/var/lib/slurm:/usr/sbin/nologin\n");
        proc(1, "systemd", 0, "S", "/sbin/init\0splash\0");
        proc(812, "sshd", 0, "S", "sshd: /usr/sbin/sshd -D [listener] 0 of 10-100 startups\0");
        proc(900, "slurmd", 64030, "S", "/usr/sbin/slurmd\0-D\0");
        proc(901, "nv-hostengine", 0, "S", "/usr/bin/nv-hostengine\0");
        proc(950, "python3", 1000, "Z", "");
        proc(951, "dcgm-exporter-l", 0, "S", "/usr/bin/dcgm-exporter-long-name\0");
        Files.createDirectories(root.resolve("proc/sys")); // not a pid
    }

    private void proc(int pid, String comm, int uid, String state, String cmdline) throws IOException {
        ctx.write("/proc/" + pid + "/comm", comm + "\n");
        ctx.write("/proc/" + pid + "/status", "Name:\t" + comm + "\nState:\t" + state + " (x)\nUid:\t" + uid + "\t" + uid + "\t" + uid + "\t" + uid + "\n");
        ctx.write("/proc/" + pid + "/cmdline", cmdline);
    }

    /** What the probe observes for {@code with}, as the loader converts it. */
    private Observation observe(String with) throws IOException, InterruptedException {
        ProbeResult r = new ProcessProbe().probe(ctx.with(new ProcessProbe().spec(), with));
        assertEquals(1, r.observations().size(), r.observations().toString());
        return r.observations().get(0);
    }

    /** The one finding of a check {@code with} these params, judged as nhc run judges it. */
    private Finding judge(String with) throws Exception {
        return Pipeline.only(pipeline.run("- { name: p, use: process, with: " + with + " }"), "p");
    }

    @Test
    void countsMatchesByCommOrArgv0AndUser() throws Exception {
        Observation slurmd = observe("{ name: slurmd, user: slurm }");
        assertEquals(1L, slurmd.get("count"));
        assertEquals("900", slurmd.get("pids"));
        assertEquals(new Entity(Entity.Kind.PROCESS, "slurmd (user slurm)", "slurmd (user slurm)", null), slurmd.entity());
        assertEquals(1L, observe("{ name: sshd, user: root }").get("count"));
        assertEquals(1L, observe("{ name: dcgm-exporter-long-name }").get("count"), "comm is cut at 15 characters");
        assertEquals(1L, observe("{ name: init }").get("count"), "argv[0] basename");
        Observation none = observe("{ name: sshd, user: slurm }");
        assertEquals(0L, none.get("count"));
        assertNull(none.get("pids"), "no pids: the field is absent");
    }

    @Test
    void presentPasses() throws Exception {
        Finding f = judge("{ name: slurmd, user: slurm }");
        assertEquals(Severity.PASS, f.severity(), f.message());
        assertEquals("slurmd (user slurm)", f.entity().label());
    }

    @Test
    void missingProcessFailsNamingItsUser() throws Exception {
        Finding f = judge("{ name: sshd, user: slurm }");
        assertEquals(Severity.FAIL, f.severity());
        assertEquals("process sshd (user slurm) not running", f.message());
        assertEquals(Severity.FAIL, judge("{ name: python3 }").severity(), "a zombie is not running");
        Finding few = judge("{ name: sshd, min_count: 2 }");
        assertEquals(Severity.FAIL, few.severity());
        assertEquals("only 1 of 2 process sshd running (pids 812)", few.message());
    }

    @Test
    void absentExpectedFailsWithThePids() throws Exception {
        Finding f = judge("{ name: nv-hostengine, state: absent }");
        assertEquals(Severity.FAIL, f.severity());
        assertEquals("process nv-hostengine is running but should not be (pids 901)", f.message());
        assertEquals(Severity.PASS, judge("{ name: gdm, state: absent }").severity());
    }

    @Test
    void manyPidsAreCutAtTen() throws Exception {
        for (int pid = 2000; pid < 2012; pid++) {
            proc(pid, "worker", 0, "S", "/usr/bin/worker\0");
        }
        Observation o = observe("{ name: worker }");
        assertEquals(12L, o.get("count"));
        assertEquals("2000, 2001, 2002, 2003, 2004, 2005, 2006, 2007, 2008, 2009, …", o.get("pids"));
    }

    @Test
    void unknownUserIsUnknownNumericUidWorks() throws Exception {
        Finding f = judge("{ name: sshd, user: nobody-here }");
        assertEquals(Severity.UNKNOWN, f.severity());
        assertEquals("no user 'nobody-here' in " + root.resolve("etc/passwd"), f.message());
        assertEquals("sshd (user nobody-here)", f.entity().label());
        assertEquals(Severity.PASS, judge("{ name: slurmd, user: \"64030\" }").severity());
    }

    @Test
    void aConfigsFailReplacesTheDefaultsAndWarnNoneKeepsThem() throws Exception {
        // two sshd are wanted, one runs: the site says that is only worth a warning
        Verdict v = pipeline.run("""
                - name: p
                  use: process
                  with: { name: sshd, min_count: 2 }
                  fail: { count: 0 }
                  warn: { count: "< 2" }
                """);
        Finding f = Pipeline.only(v, "p");
        assertEquals(Severity.WARN, f.severity());
        assertEquals("sshd: count 1 < 2", f.message());
        // fail: none drops the default rules: a missing process is no longer a failure
        assertEquals(Severity.PASS, Pipeline.only(pipeline.run("""
                - { name: p, use: process, with: { name: gdm }, fail: none }
                """), "p").severity());
        // warn: none leaves the default FAIL rules in place
        assertEquals(Severity.FAIL, Pipeline.only(pipeline.run("""
                - { name: p, use: process, with: { name: gdm }, warn: none }
                """), "p").severity());
    }

    @Test
    void aBadStateOrCountIsAConfigError() {
        ConfigException state = assertThrows(ConfigException.class,
                () -> pipeline.plan("- { name: p, use: process, with: { name: sshd, state: gone } }"));
        assertTrue(state.getMessage().contains("nhc.yaml:") && state.getMessage().contains("'gone' is not one of present, absent"),
                state.getMessage());
        ConfigException count = assertThrows(ConfigException.class,
                () -> pipeline.plan("- { name: p, use: process, with: { name: sshd, min_count: 0 } }"));
        assertTrue(count.getMessage().matches("(?s)nhc\\.yaml:\\d+:\\d+: .*min_count.*must be at least 1.*"), count.getMessage());
        ConfigException name = assertThrows(ConfigException.class, () -> pipeline.plan("- { name: p, use: process }"));
        assertTrue(name.getMessage().contains("give exactly one of 'name', 'argv0' or 'cmdline'"), name.getMessage());
        ConfigException both = assertThrows(ConfigException.class, () -> pipeline.plan("- { name: p, use: process, with: { name: a, argv0: b } }"));
        assertTrue(both.getMessage().contains("give exactly one of 'name', 'argv0' or 'cmdline'"), both.getMessage());
    }

    @Test
    void argv0AndCmdlineAreGlobsOverTheCommandLineAsPsShowsIt() throws Exception {
        assertEquals(0L, observe("{ name: \"sshd:\" }").get("count"), "no process is named 'sshd:'");
        Observation sshd = observe("{ argv0: \"*sshd:\", user: root }");
        assertEquals(1L, sshd.get("count"), "OpenSSH's rewritten title starts 'sshd:', which LBNL's *sshd: matches");
        assertEquals("argv0 *sshd: (user root)", sshd.entity().label());
        assertEquals(1L, observe("{ argv0: \"*slurmd\" }").get("count"), "*slurmd matches /usr/sbin/slurmd");
        assertEquals(0L, observe("{ argv0: \"*slurm\" }").get("count"), "a suffix match, not a prefix one");
        assertEquals(1L, observe("{ cmdline: \"*slurmd -D*\" }").get("count"), "the arguments joined by a blank");
        assertEquals(1L, observe("{ cmdline: \"*hostengine*\" }").get("count"), "anywhere in the command line, as check_ps_daemon");
        assertEquals(0L, observe("{ cmdline: \"*python3*\" }").get("count"), "a zombie does not run");
        assertEquals("[kthreadd]", ProcessMatch.asPsShowsIt("kthreadd", new byte[0]), "a kernel thread has no command line");
        assertEquals("a b ?c", ProcessMatch.asPsShowsIt("x", "a\0\0b \tc\0".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    }

    @Test
    void theActionRunsOnlyWhenTheConfigOptsIn(@TempDir Path out) throws Exception {
        Path mark = out.resolve("started");
        String check = "- { name: p, use: process, with: { name: munged, action: [/bin/sh, -c, \"echo x > " + mark + "; exit 3\"] } }";
        Finding off = Pipeline.only(pipeline.run(check), "p");
        assertEquals(Severity.FAIL, off.severity());
        assertTrue(off.message().startsWith("process munged not running; not run: '/bin/sh -c echo x > "), off.message());
        assertTrue(off.message().endsWith("' runs only with settings.run_actions: true"), off.message());
        assertTrue(Files.notExists(mark), "nhc changes nothing unasked");
        Pipeline optIn = new Pipeline(root, new ProcessProbe(() -> false)).settings("run_actions: true\n");
        Finding on = Pipeline.only(optIn.run(check), "p");
        assertEquals(Severity.FAIL, on.severity(), "this run saw no munged, as LBNL's -S fails while it starts the service");
        assertTrue(on.message().startsWith("process munged not running; ran '/bin/sh -c echo x > "), on.message());
        assertTrue(on.message().endsWith("': exit 3"), on.message());
        assertTrue(Files.exists(mark));
        Files.delete(mark);
        Finding running = Pipeline.only(optIn.run("- { name: p, use: process, with: { name: sshd, action: [/bin/sh, -c, \"echo x > "
                + mark + "\"] } }"), "p");
        assertEquals(Severity.PASS, running.severity());
        assertTrue(Files.notExists(mark), "a running process is not started again");
        Finding found = Pipeline.only(optIn.run("- { name: p, use: process, with: { name: sshd, state: absent, action: [/bin/sh, -c, \"echo x > "
                + mark + "\"] } }"), "p");
        assertEquals(Severity.FAIL, found.severity());
        assertTrue(found.message().startsWith("process sshd is running but should not be (pids 812); ran '"), found.message());
        assertTrue(Files.exists(mark), "for state absent the action runs when the process is found (LBNL's check_ps_service -E)");
    }

    @Test
    void processesThatVanishMidScanAreNotCounted() throws Exception {
        Files.createDirectories(root.resolve("proc/4242")); // no comm: exited while listed
        assertEquals(1L, observe("{ name: sshd }").get("count"));
    }

    @Test
    void realProcIsScanned(@TempDir Path bin) throws Exception {
        String name = "nhct" + ProcessHandle.current().pid();
        Path exe = bin.resolve(name);
        Files.copy(Path.of("/bin/sleep"), exe);
        exe.toFile().setExecutable(true);
        Process p = new ProcessBuilder(exe.toString(), "60").start();
        try {
            TestProbeContext live = new TestProbeContext(Path.of("/"));
            ProbeResult r = new ProcessProbe().probe(live.with(new ProcessProbe().spec(), "{ name: " + name + ", user: \"" + uid() + "\" }"));
            assertEquals(1L, r.observations().get(0).get("count"));
            assertEquals(String.valueOf(p.pid()), r.observations().get(0).get("pids"));
        } finally {
            p.destroyForcibly().waitFor();
        }
        ProbeResult gone = new ProcessProbe().probe(new TestProbeContext(Path.of("/")).with(new ProcessProbe().spec(),
                "{ name: " + name + ", state: absent }"));
        assertEquals(0L, gone.observations().get(0).get("count"));
    }

    private static long uid() throws IOException {
        return ((Number) Files.getAttribute(Path.of("/proc/self"), "unix:uid")).longValue();
    }
}
