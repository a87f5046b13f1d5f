package dev.nhc.slurm;

import dev.nhc.engine.process.ProcessRunner;
import dev.nhc.engine.testing.TrustFixtures;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** scontrol and sinfo through the engine's launcher: its trust rule, orphan killing and output cap, with Slurm's retries. */
class SlurmCommandsTest {
    @TempDir
    Path tmp;
    private Path dir;

    @BeforeEach
    void realDir() throws Exception {
        dir = TrustFixtures.rootOnly(tmp);
    }

    private static SlurmCommands commands(int retries, boolean rootOnly) {
        return new SlurmCommands(Map.of("LC_ALL", "C"), Duration.ofSeconds(5), retries, Instant.now().plusSeconds(30), Clock.systemUTC(),
                Duration.ofMillis(10), rootOnly);
    }

    @Test
    void whatTheToolLeftRunningIsKilled() throws Exception {
        Path pidFile = dir.resolve("child.pid");
        Path scontrol = TrustFixtures.script(dir.resolve("scontrol"), "sleep 300 & echo $! > " + pidFile + "\necho 'NodeName=n1 State=IDLE'");
        ProcessRunner.Result r = commands(0, false).run(List.of(scontrol.toString(), "show", "node"), x -> true);
        assertEquals("NodeName=n1 State=IDLE\n", r.stdout());
        long child = Long.parseLong(Files.readString(pidFile).strip());
        await().atMost(Duration.ofSeconds(5)).until(() -> ProcessHandle.of(child).map(h -> !h.isAlive()).orElse(true));
    }

    @Test
    void aCutAnswerIsNoAnswer() throws Exception {
        Path scontrol = TrustFixtures.script(dir.resolve("scontrol"), "head -c " + (SlurmCommands.OUTPUT_CAP + 10) + " /dev/zero | tr '\\0' x");
        SlurmUnavailableException e = assertThrows(SlurmUnavailableException.class,
                () -> commands(0, false).run(List.of(scontrol.toString(), "show", "node"), x -> true));
        assertEquals("scontrol show printed more than 32 MiB; nhc does not act on a cut answer", e.getMessage());
    }

    @Test
    void aFailureIsRetriedUntilItPassesAndTheToolIsNamedInItsOwnErrors() throws Exception {
        Path count = dir.resolve("count");
        Path scontrol = TrustFixtures.script(dir.resolve("scontrol"), "echo x >> " + count + "\n[ $(wc -l < " + count + ") -ge 3 ] && { echo ok; exit 0; }\n"
                + "echo \"$0: Unable to contact slurm controller\" >&2; exit 1");
        assertEquals("ok\n", commands(2, false).run(List.of(scontrol.toString(), "show", "node"), x -> true).stdout());
        Files.delete(count);
        SlurmUnavailableException e = assertThrows(SlurmUnavailableException.class,
                () -> commands(1, false).run(List.of(scontrol.toString(), "show", "node"), x -> true));
        assertEquals("scontrol show failed 2 time(s), last: exit 1: " + scontrol + ": Unable to contact slurm controller", e.getMessage());
    }

    @Test
    void asRootAToolOthersCouldChangeIsNeitherFoundNorRun() throws Exception {
        TrustFixtures.assumeRoot();
        Path marker = dir.resolve("ran");
        Path userBin = dir.resolve("user-bin");
        Path planted = TrustFixtures.script(userBin.resolve("scontrol"), "touch " + marker);
        TrustFixtures.nobodys(userBin);
        Path rootBin = dir.resolve("root-bin");
        Path real = TrustFixtures.script(rootBin.resolve("scontrol"), "echo real");

        assertEquals(real, SlurmSettings.locate(null, "scontrol", Map.of("PATH", userBin + ":" + rootBin), true, List.of()),
                "the user's copy is passed over, not run and not hiding the real one");
        assertEquals(planted, SlurmSettings.locate(null, "scontrol", Map.of("PATH", "relative:" + userBin), true, List.of()),
                "the only copy found is returned, for the run to refuse it by name");
        SlurmUnavailableException e = assertThrows(SlurmUnavailableException.class,
                () -> commands(2, true).run(List.of(planted.toString(), "show", "node"), x -> true));
        assertEquals("refusing to run " + planted + " as root: directory " + userBin + " is owned by uid 65534, not root; "
                + "running as root, nhc runs only programs that only root can change", e.getMessage());
        assertFalse(Files.exists(marker), "the user's scontrol never ran");

        ProcessRunner.Result r = commands(0, true).run(List.of(TrustFixtures.script(rootBin.resolve("echo-args"), "echo \"$@\"").toString(), "update",
                "Reason=NHC: " + planted + " is missing"), x -> true);
        assertEquals("update Reason=NHC: " + planted + " is missing\n", r.stdout(), "a reason quoting a path of the user's still reaches Slurm");
        assertTrue(r.argv().get(0).startsWith("/proc/"), "run through its checked descriptor: " + r.argv());
    }
}
