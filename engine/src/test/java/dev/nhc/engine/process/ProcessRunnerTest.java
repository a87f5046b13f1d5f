package dev.nhc.engine.process;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ProcessRunnerTest {

    @Test
    void environmentIsCleanPlusConfiguredVariables() throws Exception {
        ProcessOutcome o = ProcessRunner.of("/usr/bin/env").env(Map.of("SITE", "x")).run();
        assertEquals(0, o.exitCode());
        String env = o.stdout();
        assertTrue(env.contains("PATH=" + ProcessRunner.SAFE_PATH + "\n"), env);
        assertTrue(env.contains("SITE=x\n"), env);
        assertFalse(env.contains("HOME="), env);
        assertEquals(3, env.lines().count(), env); // PATH, SITE, the run tag
    }

    @Test
    void hangingToolIsKilledAtItsTimeout() throws Exception {
        long t0 = System.nanoTime();
        ProcessOutcome o = ProcessRunner.of("/bin/sleep", "600").timeout(Duration.ofMillis(300)).run();
        assertTrue(o.timedOut());
        assertEquals(-1, o.exitCode());
        assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(5), "returned long after the 0.3 s limit");
    }

    @Test
    void megabytesOfOutputAreCappedAndDrained() throws Exception {
        // 8 MiB: far beyond a pipe buffer, so an undrained child would block and time out
        ProcessOutcome o = ProcessRunner.of("/bin/sh", "-c", "head -c 8388608 /dev/zero | tr '\\0' x; echo done >&2")
                .outputCap(4096).timeout(Duration.ofSeconds(20)).run();
        assertFalse(o.timedOut());
        assertEquals(0, o.exitCode());
        assertEquals(4096, o.stdout().length());
        assertEquals(8L << 20, o.stdoutBytes());
        assertTrue(o.truncated());
        assertEquals("done", o.stderr().strip());
    }

    @Test
    void childrenThatOutliveTheToolAreKilled(@TempDir Path dir) throws Exception {
        Path pidFile = dir.resolve("child.pid");
        // the child detaches from our pipes and keeps running after its parent exits
        String script = "sleep 600 </dev/null >/dev/null 2>&1 & echo $! > " + pidFile + "; exit 0";
        ProcessOutcome o = ProcessRunner.of("/bin/sh", "-c", script).timeout(Duration.ofSeconds(10)).run();
        assertEquals(0, o.exitCode());
        long pid = Long.parseLong(Files.readString(pidFile).strip());
        await().atMost(Duration.ofSeconds(5)).until(() -> ProcessHandle.of(pid).map(h -> !h.isAlive()).orElse(true));
        assertTrue(o.killedProcesses() >= 1);
    }

    @Test
    void grandchildrenOfAHangingToolAreKilledWithIt(@TempDir Path dir) throws Exception {
        Path pidFile = dir.resolve("grandchild.pid");
        String script = "sh -c 'sleep 600 & echo $! > " + pidFile + "; wait' & wait";
        ProcessOutcome o = ProcessRunner.of("/bin/sh", "-c", script).timeout(Duration.ofMillis(500)).run();
        assertTrue(o.timedOut());
        await().atMost(Duration.ofSeconds(5)).until(() -> Files.exists(pidFile) && !Files.readString(pidFile).isBlank());
        long pid = Long.parseLong(Files.readString(pidFile).strip());
        await().atMost(Duration.ofSeconds(5)).until(() -> ProcessHandle.of(pid).map(h -> !h.isAlive()).orElse(true));
    }

    @Test
    void anAbandonedRunKillsItsToolWhenTheThreadIsInterrupted(@TempDir Path dir) throws Exception {
        Path pidFile = dir.resolve("child.pid");
        java.util.concurrent.atomic.AtomicReference<Throwable> thrown = new java.util.concurrent.atomic.AtomicReference<>();
        Thread t = new Thread(() -> {
            try {
                ProcessRunner.of("/bin/sh", "-c", "sleep 600 & echo $! > " + pidFile + "; wait").timeout(Duration.ofMinutes(5)).run();
            } catch (Exception e) {
                thrown.set(e);
            }
        });
        t.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> Files.exists(pidFile) && !Files.readString(pidFile).isBlank());
        long pid = Long.parseLong(Files.readString(pidFile).strip());
        t.interrupt(); // what the runner does to a check it abandons
        t.join(10_000);
        assertTrue(thrown.get() instanceof InterruptedException, String.valueOf(thrown.get()));
        await().atMost(Duration.ofSeconds(5)).until(() -> ProcessHandle.of(pid).map(h -> !h.isAlive()).orElse(true));
    }

    @Test
    void missingToolNamesItself() {
        IOException e = assertThrows(IOException.class, () -> ProcessRunner.of("/nonexistent/dcgmi", "health").run());
        assertEquals("cannot run /nonexistent/dcgmi: No such file or directory", e.getMessage());
    }
}
