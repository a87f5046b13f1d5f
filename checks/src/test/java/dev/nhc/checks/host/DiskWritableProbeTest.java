package dev.nhc.checks.host;

import dev.nhc.model.Finding;
import dev.nhc.model.Observation;
import dev.nhc.model.Severity;
import dev.nhc.probe.ProbeResult;
import dev.nhc.engine.testing.TestProbeContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DiskWritableProbeTest {
    @TempDir
    Path root;

    @Test
    void aWritableDirectoryPassesAndKeepsNoFile() throws Exception {
        Path scratch = Files.createDirectories(root.resolve("scratch"));
        TestProbeContext ctx = new TestProbeContext(root).params(Map.of("path", "/scratch", "timeout", Duration.ofSeconds(5)));
        ProbeResult r = new DiskWritableProbe().probe(ctx);
        assertEquals(List.of(), r.findings());
        Observation o = r.observations().get(0);
        assertEquals("/scratch", o.entity());
        assertEquals(true, o.get("writable"));
        assertTrue((Double) o.get("write_seconds") >= 0);
        try (Stream<Path> left = Files.list(scratch)) {
            assertEquals(List.of(), left.toList());
        }
    }

    @Test
    void aMissingDirectoryIsNotWritable() throws Exception {
        TestProbeContext ctx = new TestProbeContext(root).params(Map.of("path", "/scratch", "timeout", Duration.ofSeconds(5)));
        ProbeResult r = new DiskWritableProbe().probe(ctx);
        Finding f = r.findings().get(0);
        assertEquals(Severity.FAIL, f.severity());
        assertEquals("/scratch is not writable: No such file or directory", f.message());
        assertEquals(false, r.observations().get(0).get("writable"));
    }

    @Test
    void aFileWhereADirectoryShouldBeIsNotWritable() throws Exception {
        TestProbeContext ctx = new TestProbeContext(root).params(Map.of("path", "/scratch", "timeout", Duration.ofSeconds(5)));
        ctx.write("/scratch", "not a directory");
        assertEquals("/scratch is not writable: Not a directory", new DiskWritableProbe().probe(ctx).findings().get(0).message());
    }

    @Test
    void aServerThatNeverAnswersFailsOnTimeAndTheStuckThreadIsInterrupted() {
        CountDownLatch never = new CountDownLatch(1);
        AtomicBoolean interrupted = new AtomicBoolean();
        DiskWritableProbe probe = new DiskWritableProbe((dir, prefix) -> {
            try {
                never.await();
            } catch (InterruptedException e) {
                interrupted.set(true);
            }
        });
        TestProbeContext ctx = new TestProbeContext(root).params(Map.of("path", "/nfs/home", "timeout", Duration.ofMillis(300)));
        // Generous deadline: the 300 ms timeout plus 3 s of slack for a loaded machine.
        ProbeResult r = assertTimeoutPreemptively(Duration.ofMillis(3300), () -> probe.probe(ctx));
        Finding f = r.findings().get(0);
        assertEquals(Severity.FAIL, f.severity());
        assertEquals("/nfs/home did not answer within 300ms", f.message());
        assertEquals(Map.of(), r.observations().get(0).fields());
        await().atMost(Duration.ofSeconds(5)).untilTrue(interrupted);
    }

    @Test
    void aStuckWriteIsNotRepeatedUntilItReturns() throws Exception {
        CountDownLatch server = new CountDownLatch(1);
        AtomicInteger attempts = new AtomicInteger();
        DiskWritableProbe probe = new DiskWritableProbe((dir, prefix) -> {
            attempts.incrementAndGet();
            // Like a thread in D state: an interrupt does not get it out; only the server does.
            while (true) {
                try {
                    server.await();
                    return;
                } catch (InterruptedException ignored) {
                    // keep waiting
                }
            }
        });
        TestProbeContext ctx = new TestProbeContext(root).params(Map.of("path", "/nfs/home", "timeout", Duration.ofMillis(200)));
        Files.createDirectories(ctx.sys("/nfs/home"));
        assertEquals("/nfs/home did not answer within 200ms", probe.probe(ctx).findings().get(0).message());
        Finding again = probe.probe(ctx).findings().get(0);
        assertEquals(Severity.FAIL, again.severity());
        assertTrue(again.message().startsWith("/nfs/home did not answer: a write test started "), again.message());
        assertTrue(again.message().endsWith(" ago is still waiting"), again.message());
        assertEquals(1, attempts.get());

        server.countDown();
        await().atMost(Duration.ofSeconds(5)).until(() -> probe.probe(ctx).findings().isEmpty());
        assertEquals(2, attempts.get());
    }

    @Test
    void neverWaitsLongerThanTheCheckHasLeft() {
        DiskWritableProbe probe = new DiskWritableProbe((dir, prefix) -> {
            try {
                new CountDownLatch(1).await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        TestProbeContext ctx = new TestProbeContext(root).budget(Duration.ofSeconds(1))
                .params(Map.of("path", "/nfs/home", "timeout", Duration.ofSeconds(30)));
        ProbeResult r = assertTimeoutPreemptively(Duration.ofSeconds(4), () -> probe.probe(ctx));
        assertEquals("/nfs/home did not answer within 750ms", r.findings().get(0).message());
    }

    @Test
    void theLimitLeavesTimeToReport() {
        assertEquals(Duration.ofSeconds(5), DiskWritableProbe.limit(Duration.ofSeconds(5), Duration.ofSeconds(10)));
        assertEquals(Duration.ofMillis(1750), DiskWritableProbe.limit(Duration.ofSeconds(5), Duration.ofSeconds(2)));
        assertEquals(Duration.ofMillis(200), DiskWritableProbe.limit(Duration.ofSeconds(5), Duration.ofMillis(400)));
        assertEquals(Duration.ZERO, DiskWritableProbe.limit(Duration.ofSeconds(5), Duration.ZERO));
    }

    @Test
    void anInterruptedProbeGivesUpAndInterruptsItsWorker() throws Exception {
        AtomicBoolean workerInterrupted = new AtomicBoolean();
        CountDownLatch started = new CountDownLatch(1);
        DiskWritableProbe probe = new DiskWritableProbe((dir, prefix) -> {
            started.countDown();
            try {
                new CountDownLatch(1).await();
            } catch (InterruptedException e) {
                workerInterrupted.set(true);
            }
        });
        TestProbeContext ctx = new TestProbeContext(root).params(Map.of("path", "/nfs/home", "timeout", Duration.ofMinutes(5)));
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread runner = new Thread(() -> {
            try {
                probe.probe(ctx);
            } catch (Throwable t) {
                thrown.set(t);
            }
        });
        runner.start();
        started.await();
        runner.interrupt();
        runner.join(Duration.ofSeconds(5).toMillis());
        assertTrue(thrown.get() instanceof InterruptedException, String.valueOf(thrown.get()));
        await().atMost(Duration.ofSeconds(5)).untilTrue(workerInterrupted);
    }

    @Test
    void aRelativePathIsRefused() {
        TestProbeContext ctx = new TestProbeContext(root).params(Map.of("path", "scratch", "timeout", Duration.ofSeconds(5)));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new DiskWritableProbe().probe(ctx));
        assertTrue(e.getMessage().contains("'scratch'"), e.getMessage());
    }
}
