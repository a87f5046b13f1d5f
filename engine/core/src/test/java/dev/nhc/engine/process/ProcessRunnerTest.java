package dev.nhc.engine.process;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Real processes: the test programs are /bin/sh scripts given as argv (the runner itself never adds a shell). */
class ProcessRunnerTest {

    private static ProcessRunner sh(String script) {
        return ProcessRunner.of(List.of("/bin/sh", "-c", script));
    }

    @Test
    void exitCodeStdoutStderrAndFirstLine() throws Exception {
        ProcessRunner.Result r = sh("echo; echo '  first words  '; echo second; echo oops >&2; exit 3").run();
        assertEquals(3, r.exitCode());
        assertFalse(r.timedOut());
        assertEquals("\n  first words  \nsecond\n", r.stdout());
        assertEquals("oops\n", r.stderr());
        assertEquals("first words", r.firstLine());
        assertEquals("oops", sh("echo oops >&2; exit 1").run().firstLine());
    }

    @Test
    void argumentsReachTheProgramVerbatimWithoutAShell() throws Exception {
        ProcessRunner.Result r = ProcessRunner.of(List.of("/usr/bin/printf", "%s|", "a b", "$(id)", ";rm -rf /tmp/x")).run();
        assertEquals("a b|$(id)|;rm -rf /tmp/x|", r.stdout());
    }

    @Test
    void stdinIsClosed() throws Exception {
        ProcessRunner.Result r = ProcessRunner.of(List.of("/bin/cat")).timeout(Duration.ofSeconds(20)).run();
        assertFalse(r.timedOut(), "cat read EOF at once");
        assertEquals(0, r.exitCode());
    }

    @Test
    void aChattyProgramIsCappedAndNeverBlocks() throws Exception {
        ProcessRunner.Result r = ProcessRunner.of(List.of("/usr/bin/head", "-c", "20000000", "/dev/zero"))
                .outputCap(1000).timeout(Duration.ofSeconds(30)).run();
        assertFalse(r.timedOut());
        assertEquals(0, r.exitCode());
        assertEquals(1000, r.stdout().length());
        assertTrue(r.truncated());
    }

    @Test
    void onTimeoutTheWholeTreeIsKilled() throws Exception {
        String tree = treeMarker();
        ProcessRunner.Result r = sh("sleep 300 & sleep 300 & echo started; wait").env(marked(tree)).timeout(Duration.ofMillis(800)).run();
        assertTrue(r.timedOut());
        assertEquals(-1, r.exitCode());
        assertEquals("started\n", r.stdout());
        assertTrue(r.killed() >= 3, "the shell and both sleeps, killed " + r.killed());
        assertTrue(r.elapsed().compareTo(Duration.ofSeconds(5)) < 0, "returned promptly: " + r.elapsed());
        await().atMost(Duration.ofSeconds(5)).until(() -> withEnvironment(tree).isEmpty());
    }

    @Test
    void childrenThatOutliveTheProgramAndHoldItsOutputAreKilled() throws Exception {
        String tree = treeMarker();
        ProcessRunner.Result r = sh("sleep 301 & echo parent done").env(marked(tree)).timeout(Duration.ofSeconds(20)).run();
        assertFalse(r.timedOut());
        assertEquals(0, r.exitCode());
        assertEquals("parent done\n", r.stdout());
        assertTrue(r.killed() >= 1);
        assertTrue(r.elapsed().compareTo(Duration.ofSeconds(10)) < 0, "did not wait for the orphan: " + r.elapsed());
        await().atMost(Duration.ofSeconds(5)).until(() -> withEnvironment(tree).isEmpty());
    }

    @Test
    void cleanEnvironmentHasOnlyTheSafeBasicsAndWhatWasGiven() throws Exception {
        ProcessRunner.Result r = ProcessRunner.of(List.of("/usr/bin/env")).cleanEnvironment().env(Map.of("NHC_X", "1")).run();
        List<String> vars = r.stdout().lines().sorted().toList();
        assertTrue(vars.get(1).startsWith("NHC_PROCESS_TAG="), vars.toString());
        vars = vars.stream().filter(v -> !v.startsWith("NHC_PROCESS_TAG=")).toList();
        assertEquals(List.of("LANG=C", "NHC_X=1", "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"), vars);
    }

    @Test
    void stdoutCanBeStreamedLineByLine() throws Exception {
        List<String> lines = new ArrayList<>();
        ProcessRunner.Result r = sh("i=0; while [ $i -lt 5000 ]; do echo line $i; i=$((i+1)); done; printf tail")
                .onStdoutLine(lines::add).timeout(Duration.ofSeconds(30)).run();
        assertEquals(0, r.exitCode());
        assertEquals("", r.stdout());
        assertEquals(5001, lines.size());
        assertEquals("line 4999", lines.get(4999));
        assertEquals("tail", lines.get(5000));
    }

    @Test
    void aMissingProgramCannotBeStarted() {
        IOException e = assertThrows(IOException.class, () -> ProcessRunner.of(List.of("/nonexistent/tool")).run());
        assertTrue(e.getMessage().contains("/nonexistent/tool"), e.getMessage());
    }

    @Test
    void missingToolNamesItselfAndWhy() {
        ProcessRunner.StartFailure e = assertThrows(ProcessRunner.StartFailure.class,
                () -> ProcessRunner.of(List.of("/nonexistent/dcgmi", "health")).run());
        assertEquals("cannot run /nonexistent/dcgmi: No such file or directory", e.getMessage());
        assertEquals("No such file or directory", e.reason());
    }

    @Test
    void minimalEnvironmentIsExactlyThePathGivenPlusConfiguredVariables() throws Exception {
        ProcessRunner.Result r = ProcessRunner.of(List.of("/usr/bin/env")).minimalEnvironment(ProcessRunner.SYSTEM_PATH)
                .env(Map.of("SITE", "x")).run();
        assertEquals(0, r.exitCode());
        List<String> vars = r.stdout().lines().filter(v -> !v.startsWith("NHC_PROCESS_TAG=")).sorted().toList();
        assertEquals(List.of("PATH=/usr/sbin:/usr/bin:/sbin:/bin", "SITE=x"), vars);
        assertEquals(3, r.stdout().lines().count(), r.stdout()); // PATH, SITE, the run tag
    }

    @Test
    void theWorkingDirectoryCanBeSet(@TempDir Path dir) throws Exception {
        ProcessRunner.Result r = ProcessRunner.of(List.of("/bin/pwd")).directory(dir).run();
        assertEquals(dir.toRealPath().toString(), r.stdout().strip());
    }

    @Test
    void hangingToolIsKilledAtItsTimeout() throws Exception {
        long t0 = System.nanoTime();
        ProcessRunner.Result r = ProcessRunner.of(List.of("/bin/sleep", "600")).timeout(Duration.ofMillis(300)).run();
        assertTrue(r.timedOut());
        assertEquals(-1, r.exitCode());
        assertEquals(1, r.killed());
        assertEquals(0, r.killedChildren());
        assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(5), "returned long after the 0.3 s limit");
    }

    @Test
    void megabytesOfOutputAreCountedCappedAndDrainedAlongsideStderr() throws Exception {
        // 8 MiB: far beyond a pipe buffer, so an undrained child would block and time out
        ProcessRunner.Result r = sh("head -c 8388608 /dev/zero | tr '\\0' x; echo done >&2")
                .outputCap(4096).timeout(Duration.ofSeconds(20)).run();
        assertFalse(r.timedOut());
        assertEquals(0, r.exitCode());
        assertEquals(4096, r.stdout().length());
        assertEquals(8L << 20, r.stdoutBytes());
        assertTrue(r.truncated());
        assertEquals("done", r.stderr().strip());
    }

    @Test
    void detachedChildrenThatOutliveTheToolAreKilled(@TempDir Path dir) throws Exception {
        Path pidFile = dir.resolve("child.pid");
        // the child lets go of our pipes and keeps running after its parent exits: only the tag finds it
        String script = "sleep 600 </dev/null >/dev/null 2>&1 & echo $! > " + pidFile + "; exit 0";
        ProcessRunner.Result r = sh(script).timeout(Duration.ofSeconds(10)).run();
        assertEquals(0, r.exitCode());
        long pid = Long.parseLong(Files.readString(pidFile).strip());
        await().atMost(Duration.ofSeconds(5)).until(() -> ProcessHandle.of(pid).map(h -> !h.isAlive()).orElse(true));
        assertTrue(r.killedChildren() >= 1, "killed " + r.killedChildren());
    }

    @Test
    void grandchildrenOfAHangingToolAreKilledWithIt(@TempDir Path dir) throws Exception {
        Path pidFile = dir.resolve("grandchild.pid");
        String script = "sh -c 'sleep 600 & echo $! > " + pidFile + "; wait' & wait";
        ProcessRunner.Result r = sh(script).timeout(Duration.ofMillis(500)).run();
        assertTrue(r.timedOut());
        await().atMost(Duration.ofSeconds(5)).until(() -> Files.exists(pidFile) && !Files.readString(pidFile).isBlank());
        long pid = Long.parseLong(Files.readString(pidFile).strip());
        await().atMost(Duration.ofSeconds(5)).until(() -> ProcessHandle.of(pid).map(h -> !h.isAlive()).orElse(true));
    }

    @Test
    void anAbandonedRunKillsItsToolWhenTheThreadIsInterrupted(@TempDir Path dir) throws Exception {
        Path pidFile = dir.resolve("child.pid");
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread t = new Thread(() -> {
            try {
                sh("sleep 600 & echo $! > " + pidFile + "; wait").timeout(Duration.ofMinutes(5)).run();
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

    /**
     * Issue 13 item 12: at the pid limit the JVM cannot start the thread that reads the program's
     * output ("unable to create native thread"); the program was already started and its fork bomb
     * went on. Now the whole tree is killed and the failure is a StartFailure the probe reports.
     */
    @Test
    void whenTheOutputReaderCannotStartEverythingTheProgramForkedIsKilled(@TempDir Path dir) throws Exception {
        String marker = treeMarker();
        Path spreading = dir.resolve("spreading");
        // A bounded fork bomb: a tree of 63 shells and sleeps that is still growing when the reader fails.
        String bomb = "f() { if [ $1 -gt 0 ]; then f $(($1-1)) & f $(($1-1)) & fi; exec sleep 302; }; f 5 & echo > " + spreading + "; wait";
        java.util.concurrent.ThreadFactory exhausted = r -> {
            await().atMost(Duration.ofSeconds(10)).until(() -> Files.exists(spreading));
            throw new OutOfMemoryError("unable to create native thread: possibly out of memory or process/resource limits reached");
        };

        ProcessRunner.StartFailure e = assertThrows(ProcessRunner.StartFailure.class, () -> sh(bomb)
                .env(marked(marker))
                .readerThreads(exhausted).timeout(Duration.ofSeconds(30)).run());

        assertEquals("cannot start reader: unable to create native thread: possibly out of memory or process/resource limits reached",
                e.reason());
        assertTrue(e.getMessage().startsWith("cannot run /bin/sh: cannot start reader"), e.getMessage());
        await("every process of the program killed").atMost(Duration.ofSeconds(5)).until(() -> withEnvironment(marker).isEmpty());
    }

    /** The pids whose environment holds {@code entry} (NAME=value): what a program started, wherever it was reparented. */
    private static List<Long> withEnvironment(String entry) throws IOException {
        byte[] want = (entry + "\0").getBytes(java.nio.charset.StandardCharsets.UTF_8);
        List<Long> found = new ArrayList<>();
        try (var procs = Files.newDirectoryStream(Path.of("/proc"), d -> d.getFileName().toString().matches("[0-9]+"))) {
            for (Path d : procs) {
                try {
                    byte[] env = Files.readAllBytes(d.resolve("environ"));
                    if (indexOf(env, want) >= 0) {
                        found.add(Long.parseLong(d.getFileName().toString()));
                    }
                } catch (IOException gone) {
                    // exited while we looked
                }
            }
        }
        return found;
    }

    private static int indexOf(byte[] hay, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= hay.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    @Test
    void withinLeavesTheProbeTimeToAnswer() {
        assertEquals(Duration.ofMillis(9800), ProcessRunner.within(Duration.ofSeconds(10)));
        assertEquals(Duration.ofMillis(900), ProcessRunner.within(Duration.ofSeconds(1)));
    }

    /**
     * NAME=value in the environment of this test's processes and whatever they start, and nowhere
     * else: other builds on the machine run the same test (and the same sleeps) at the same time.
     */
    private static String treeMarker() {
        return "NHC_TEST_TREE=" + java.util.UUID.randomUUID();
    }

    private static Map<String, String> marked(String marker) {
        return Map.of(marker.substring(0, marker.indexOf('=')), marker.substring(marker.indexOf('=') + 1));
    }

}
