package dev.nhc.checks.host;

import dev.nhc.model.Finding;
import dev.nhc.model.Severity;
import dev.nhc.probe.ProbeResult;
import dev.nhc.engine.testing.TestProbeContext;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ProcessProbeTest {
    @TempDir
    Path root;
    private TestProbeContext ctx;

    @BeforeEach
    void tree() throws IOException {
        ctx = new TestProbeContext(root);
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

    private ProbeResult run(Map<String, Object> with) throws IOException {
        return new ProcessProbe().probe(ctx.params(with));
    }

    @Test
    void presentByCommOrArgv0AndUser() throws IOException {
        ProbeResult r = run(Map.of("name", "slurmd", "user", "slurm"));
        assertTrue(r.findings().isEmpty(), r.findings().toString());
        assertEquals(1L, r.observations().get(0).get("count"));
        assertTrue(run(Map.of("name", "sshd", "user", "root")).findings().isEmpty());
        assertTrue(run(Map.of("name", "dcgm-exporter-long-name")).findings().isEmpty(), "comm is cut at 15 characters");
        assertTrue(run(Map.of("name", "init")).findings().isEmpty(), "argv[0] basename");
    }

    @Test
    void missingProcessFailsNamingItsUser() throws IOException {
        Finding f = run(Map.of("name", "sshd", "user", "slurm")).findings().get(0);
        assertEquals(Severity.FAIL, f.severity());
        assertEquals("process sshd (user slurm) not running", f.message());
        assertEquals(Severity.FAIL, run(Map.of("name", "python3")).findings().get(0).severity(), "a zombie is not running");
        Finding few = run(Map.of("name", "sshd", "min_count", 2L)).findings().get(0);
        assertEquals("only 1 of 2 process sshd running (pids 812)", few.message());
    }

    @Test
    void absentExpectedFailsWithThePids() throws IOException {
        Finding f = run(Map.of("name", "nv-hostengine", "state", "absent")).findings().get(0);
        assertEquals(Severity.FAIL, f.severity());
        assertTrue(f.message().contains("pids 901"), f.message());
        assertTrue(run(Map.of("name", "gdm", "state", "absent")).findings().isEmpty());
    }

    @Test
    void unknownUserIsUnknownNumericUidWorks() throws IOException {
        assertEquals(Severity.UNKNOWN, run(Map.of("name", "sshd", "user", "nobody-here")).findings().get(0).severity());
        assertTrue(run(Map.of("name", "slurmd", "user", "64030")).findings().isEmpty());
    }

    @Test
    void processesThatVanishMidScanAreNotCounted() throws IOException {
        Files.createDirectories(root.resolve("proc/4242")); // no comm: exited while listed
        assertEquals(1L, run(Map.of("name", "sshd")).observations().get(0).get("count"));
    }

    @Test
    void realProcIsScanned(@TempDir Path bin) throws Exception {
        String name = "nhct" + ProcessHandle.current().pid();
        Path exe = bin.resolve(name);
        Files.copy(Path.of("/bin/sleep"), exe);
        exe.toFile().setExecutable(true);
        Process p = new ProcessBuilder(exe.toString(), "60").start();
        try {
            TestProbeContext real = new TestProbeContext(Path.of("/"));
            ProbeResult r = new ProcessProbe().probe(real.params(Map.of("name", name, "user", String.valueOf(uid()))));
            assertTrue(r.findings().isEmpty(), r.findings().toString());
            assertEquals(1L, r.observations().get(0).get("count"));
        } finally {
            p.destroyForcibly().waitFor();
        }
        ProbeResult gone = new ProcessProbe().probe(new TestProbeContext(Path.of("/")).params(Map.of("name", name, "state", "absent")));
        assertTrue(gone.findings().isEmpty(), gone.findings().toString());
    }

    private static long uid() throws IOException {
        return ((Number) Files.getAttribute(Path.of("/proc/self"), "unix:uid")).longValue();
    }
}
