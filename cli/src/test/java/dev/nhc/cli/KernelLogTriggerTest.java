package dev.nhc.cli;

import dev.nhc.engine.plan.Plan;
import dev.nhc.probe.Tags;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** The daemon starts its triggers again on each reload: a changed {@code log:} follows the new file, not the old one. */
class KernelLogTriggerTest {
    @TempDir
    Path dir;

    private Plan plan(String log) throws Exception {
        Path file = dir.resolve("nhc.yaml");
        Files.writeString(file, "nhc: 1\nsettings:\n  root: " + dir.resolve("root") + "\n  state_dir: " + dir.resolve("state") + "\n"
                + "checks:\n  - { name: klog, use: kernel.log, with: { log: " + log + " } }\n");
        return Wiring.loader().load(file);
    }

    private void append(Path file, String line) throws Exception {
        Files.writeString(file, line + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    @Test
    void aReloadThatMovesTheLogFollowsTheNewFileAndNoLongerTheOld() throws Exception {
        Path old = Files.createDirectories(dir.resolve("root/var/log")).resolve("old.log");
        Path moved = dir.resolve("root/var/log/new.log");
        append(old, "boot");
        append(moved, "boot");
        AtomicInteger oldWakes = new AtomicInteger();
        AtomicInteger newWakes = new AtomicInteger();
        KernelLogTrigger t = new KernelLogTrigger();
        try {
            t.start(plan("/var/log/old.log"), tag -> oldWakes.incrementAndGet());
            append(old, "xid 79");
            await().atMost(Duration.ofSeconds(5)).until(() -> oldWakes.get() >= 1);

            t.start(plan("/var/log/new.log"), tag -> {
                assertEquals(Tags.KERNEL_LOG, tag);
                newWakes.incrementAndGet();
            });
            int before = oldWakes.get();
            append(old, "written to the old file");
            append(moved, "xid 79");
            await().atMost(Duration.ofSeconds(5)).until(() -> newWakes.get() >= 1);
            // The new follower saw its line; the old one, closed before it started, saw nothing.
            assertEquals(before, oldWakes.get(), "the old file is no longer followed");
        } finally {
            t.close();
        }
    }
}
