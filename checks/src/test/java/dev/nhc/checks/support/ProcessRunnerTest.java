package dev.nhc.checks.support;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

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
    void exitCodeStdoutStderrAndFirstLine() throws IOException {
        ProcessRunner.Result r = sh("echo; echo '  first words  '; echo second; echo oops >&2; exit 3").run();
        assertEquals(3, r.exitCode());
        assertFalse(r.timedOut());
        assertEquals("\n  first words  \nsecond\n", r.stdout());
        assertEquals("oops\n", r.stderr());
        assertEquals("first words", r.firstLine());
        assertEquals("oops", sh("echo oops >&2; exit 1").run().firstLine());
    }

    @Test
    void argumentsReachTheProgramVerbatimWithoutAShell() throws IOException {
        ProcessRunner.Result r = ProcessRunner.of(List.of("/usr/bin/printf", "%s|", "a b", "$(id)", ";rm -rf /tmp/x")).run();
        assertEquals("a b|$(id)|;rm -rf /tmp/x|", r.stdout());
    }

    @Test
    void stdinIsClosed() throws IOException {
        ProcessRunner.Result r = ProcessRunner.of(List.of("/bin/cat")).timeout(Duration.ofSeconds(20)).run();
        assertFalse(r.timedOut(), "cat read EOF at once");
        assertEquals(0, r.exitCode());
    }

    @Test
    void aChattyProgramIsCappedAndNeverBlocks() throws IOException {
        ProcessRunner.Result r = ProcessRunner.of(List.of("/usr/bin/head", "-c", "20000000", "/dev/zero"))
                .outputCap(1000).timeout(Duration.ofSeconds(30)).run();
        assertFalse(r.timedOut());
        assertEquals(0, r.exitCode());
        assertEquals(1000, r.stdout().length());
        assertTrue(r.truncated());
    }

    @Test
    void onTimeoutTheWholeTreeIsKilled() throws IOException {
        ProcessRunner.Result r = sh("sleep 300 & sleep 300 & echo started; wait").timeout(Duration.ofMillis(800)).run();
        assertTrue(r.timedOut());
        assertEquals(-1, r.exitCode());
        assertEquals("started\n", r.stdout());
        assertTrue(r.killed() >= 3, "the shell and both sleeps, killed " + r.killed());
        assertTrue(r.elapsed().compareTo(Duration.ofSeconds(5)) < 0, "returned promptly: " + r.elapsed());
        await().atMost(Duration.ofSeconds(5)).until(() -> sleepers().isEmpty());
    }

    @Test
    void childrenThatOutliveTheProgramAndHoldItsOutputAreKilled() throws IOException {
        ProcessRunner.Result r = sh("sleep 301 & echo parent done").timeout(Duration.ofSeconds(20)).run();
        assertFalse(r.timedOut());
        assertEquals(0, r.exitCode());
        assertEquals("parent done\n", r.stdout());
        assertTrue(r.killed() >= 1);
        assertTrue(r.elapsed().compareTo(Duration.ofSeconds(10)) < 0, "did not wait for the orphan: " + r.elapsed());
        await().atMost(Duration.ofSeconds(5)).until(() -> ProcessHandle.allProcesses()
                .noneMatch(h -> h.info().commandLine().orElse("").contains("sleep 301")));
    }

    @Test
    void cleanEnvironmentHasOnlyTheSafeBasicsAndWhatWasGiven() throws IOException {
        ProcessRunner.Result r = ProcessRunner.of(List.of("/usr/bin/env")).cleanEnvironment().env(Map.of("NHC_X", "1")).run();
        List<String> vars = r.stdout().lines().sorted().toList();
        assertTrue(vars.get(1).startsWith("NHC_PROCESS_TAG="), vars.toString());
        vars = vars.stream().filter(v -> !v.startsWith("NHC_PROCESS_TAG=")).toList();
        assertEquals(List.of("LANG=C", "NHC_X=1", "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"), vars);
    }

    @Test
    void stdoutCanBeStreamedLineByLine() throws IOException {
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
    void withinLeavesTheProbeTimeToAnswer() {
        assertEquals(Duration.ofMillis(9800), ProcessRunner.within(Duration.ofSeconds(10)));
        assertEquals(Duration.ofMillis(900), ProcessRunner.within(Duration.ofSeconds(1)));
    }

    private static List<ProcessHandle> sleepers() {
        long self = ProcessHandle.current().pid();
        return ProcessHandle.allProcesses().filter(h -> h.info().commandLine().orElse("").contains("sleep 300"))
                .filter(h -> h.parent().map(ProcessHandle::pid).map(p -> p != self).orElse(true)).toList();
    }

}
