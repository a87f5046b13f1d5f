package dev.nhc.checks.kernel;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

class KernelLogFollowerTest {
    @TempDir
    Path dir;

    /** A failure in what acts on new lines does not end the following. */
    @Test
    void theJournalIsStillFollowedAfterTheCallbackFailed() throws Exception {
        Path journalctl = dir.resolve("journalctl");
        Files.writeString(journalctl, "#!/bin/sh\nwhile true; do echo 'NVRM: Xid'; sleep 0.3; done\n");
        Files.setPosixFilePermissions(journalctl, PosixFilePermissions.fromString("rwxr-xr-x"));
        AtomicInteger calls = new AtomicInteger();
        List<String> problems = new ArrayList<>();
        try (KernelLogFollower f = KernelLogFollower.start(dir, List.of("journal"), journalctl.toString(), () -> {
            if (calls.incrementAndGet() == 1) {
                throw new IllegalStateException("a bug in the daemon");
            }
        }, problems)) {
            assertEquals(List.of(), problems);
            await().atMost(Duration.ofSeconds(10)).until(() -> calls.get() >= 3);
        }
    }
}
