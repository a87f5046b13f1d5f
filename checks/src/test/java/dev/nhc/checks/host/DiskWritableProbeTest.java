package dev.nhc.checks.host;

import dev.nhc.engine.testing.TestProbeContext;
import dev.nhc.model.Entity;
import dev.nhc.model.Finding;
import dev.nhc.model.Observation;
import dev.nhc.model.Severity;
import dev.nhc.probe.ProbeResult;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.rules.testing.Pipeline;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DiskWritableProbeTest {
    private static final ProbeSpec SPEC = new DiskWritableProbe().spec();
    private static final Entity NFS_HOME = Entity.of(Entity.Kind.PATH, "/nfs/home");

    @TempDir
    Path root;

    private TestProbeContext ctx(String with) {
        return new TestProbeContext(root).with(SPEC, with);
    }

    /** A write test that never returns on its own, as against an NFS server that is gone; {@code interrupted} is set when it is interrupted. */
    private static DiskWritableProbe hanging(AtomicBoolean interrupted) {
        return new DiskWritableProbe((dir, prefix) -> {
            try {
                new CountDownLatch(1).await();
            } catch (InterruptedException e) {
                interrupted.set(true);
            }
        });
    }

    @Test
    void aWritableDirectoryPassesAndKeepsNoFile() throws Exception {
        Path scratch = Files.createDirectories(root.resolve("scratch"));
        Observation o = new DiskWritableProbe().probe(ctx("{ path: /scratch }")).observations().get(0);
        assertEquals(Entity.of(Entity.Kind.PATH, "/scratch"), o.entity());
        assertEquals(true, o.get("answered"));
        assertEquals(true, o.get("writable"));
        assertTrue((Double) o.get("write_seconds") >= 0);
        try (Stream<Path> left = Files.list(scratch)) {
            assertEquals(List.of(), left.toList());
        }
        Finding f = Pipeline.only(new Pipeline(root, new DiskWritableProbe()).run("- { name: w, use: disk.writable, with: { path: /scratch } }"), "w");
        assertEquals(Severity.PASS, f.severity(), f.message());
    }

    @Test
    void aMissingDirectoryIsNotWritable() throws Exception {
        Observation o = new DiskWritableProbe().probe(ctx("{ path: /scratch }")).observations().get(0);
        assertEquals(true, o.get("answered"));
        assertEquals(false, o.get("writable"));
        assertEquals("No such file or directory", o.get("error"));
        Finding f = Pipeline.only(new Pipeline(root, new DiskWritableProbe()).run("- { name: w, use: disk.writable, with: { path: /scratch } }"), "w");
        assertEquals(Severity.FAIL, f.severity());
        assertEquals("/scratch is not writable: No such file or directory", f.message());
    }

    @Test
    void aFileWhereADirectoryShouldBeIsNotWritable() throws Exception {
        new TestProbeContext(root).write("/scratch", "not a directory");
        Finding f = Pipeline.only(new Pipeline(root, new DiskWritableProbe()).run("- { name: w, use: disk.writable, with: { path: /scratch } }"), "w");
        assertEquals("/scratch is not writable: Not a directory", f.message());
    }

    @Test
    void aServerThatNeverAnswersIsObservedOnTimeAndTheStuckThreadIsInterrupted() {
        AtomicBoolean interrupted = new AtomicBoolean();
        DiskWritableProbe probe = hanging(interrupted);
        // Generous deadline: the 300 ms timeout plus 3 s of slack for a loaded machine.
        ProbeResult r = assertTimeoutPreemptively(Duration.ofMillis(3300), () -> probe.probe(ctx("{ path: /nfs/home, timeout: 300ms }")));
        Observation o = r.observations().get(0);
        assertEquals(NFS_HOME, o.entity());
        assertEquals(Map.of("answered", false, "earlier_test_stuck", false, "waited_seconds", 0.3, "time_limit", 0.3), o.fields());
        await().atMost(Duration.ofSeconds(5)).untilTrue(interrupted);
    }

    @Test
    void aServerThatNeverAnswersFails() throws Exception {
        Pipeline p = new Pipeline(root, hanging(new AtomicBoolean()));
        Finding f = Pipeline.only(p.run("- { name: w, use: disk.writable, with: { path: /nfs/home, timeout: 300ms } }"), "w");
        assertEquals(Severity.FAIL, f.severity());
        assertEquals("/nfs/home did not answer within 0.3s", f.message());
        assertEquals(NFS_HOME, f.entity());
    }

    @Test
    void aConfigsOwnFailStillDoesNotPassAServerThatNeverAnswers() throws Exception {
        Pipeline p = new Pipeline(root, hanging(new AtomicBoolean()));
        String check = "- { name: w, use: disk.writable, with: { path: /nfs/home, timeout: 300ms }, fail: { write_seconds: \"> 2s\" } }";
        Finding f = Pipeline.only(p.run(check), "w");
        assertEquals(Severity.UNKNOWN, f.severity());
        assertEquals("/nfs/home did not answer within 0.3s", f.message());
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
        Files.createDirectories(root.resolve("nfs/home"));
        Pipeline p = new Pipeline(root, probe);
        String check = "- { name: w, use: disk.writable, with: { path: /nfs/home, timeout: 200ms } }";
        assertEquals("/nfs/home did not answer within 0.2s", Pipeline.only(p.run(check), "w").message());
        Finding again = Pipeline.only(p.run(check), "w");
        assertEquals(Severity.FAIL, again.severity());
        assertTrue(again.message().startsWith("/nfs/home did not answer: a write test started "), again.message());
        assertTrue(again.message().endsWith("s ago is still waiting"), again.message());
        assertEquals(true, again.observed().get("earlier_test_stuck"));
        assertTrue((Double) again.observed().get("waited_seconds") >= 0.2, again.observed().toString());
        assertEquals(1, attempts.get());

        server.countDown();
        await().atMost(Duration.ofSeconds(5)).until(() -> Pipeline.severity(p.run(check), "w") == Severity.PASS);
        assertEquals(2, attempts.get());
    }

    /** Two checks of one path: one's test in flight is not the other's "earlier test stuck". */
    @Test
    void twoChecksOfOnePathEachRunTheirOwnTest() throws Exception {
        CountDownLatch firstStarted = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger attempts = new AtomicInteger();
        DiskWritableProbe probe = new DiskWritableProbe((dir, prefix) -> {
            if (attempts.incrementAndGet() == 1) {
                firstStarted.countDown();
                try {
                    release.await();
                } catch (InterruptedException ignored) {
                    // the test ends it
                }
            }
        });
        Files.createDirectories(root.resolve("nfs/home"));
        java.util.concurrent.CompletableFuture<ProbeResult> first = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return probe.probe(ctx("{ path: /nfs/home, timeout: 30s }").checkName("home-a"));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        try {
            assertTrue(firstStarted.await(10, TimeUnit.SECONDS));
            Observation other = probe.probe(ctx("{ path: /nfs/home, timeout: 30s }").checkName("home-b")).observations().get(0);
            assertEquals(true, other.get("answered"), other.toString());
            assertEquals(true, other.get("writable"), other.toString());
        } finally {
            release.countDown();
        }
        assertEquals(true, first.get(10, TimeUnit.SECONDS).observations().get(0).get("writable"));
    }

    @Test
    void neverWaitsLongerThanTheCheckHasLeft() {
        DiskWritableProbe probe = hanging(new AtomicBoolean());
        TestProbeContext ctx = ctx("{ path: /nfs/home, timeout: 30s }").budget(Duration.ofSeconds(1));
        ProbeResult r = assertTimeoutPreemptively(Duration.ofSeconds(4), () -> probe.probe(ctx));
        assertEquals(0.75, r.observations().get(0).get("waited_seconds"));
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
        TestProbeContext ctx = ctx("{ path: /nfs/home, timeout: 5m }");
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
    void aRelativePathOrANonPositiveTimeoutIsAConfigError() {
        Pipeline p = new Pipeline(root, new DiskWritableProbe());
        assertTrue(ConfigErrors.at(p, "- { name: w, use: disk.writable, with: { path: scratch } }", "scratch }")
                .endsWith("'scratch' must be an absolute path such as /scratch"));
        assertTrue(ConfigErrors.at(p, "- { name: w, use: disk.writable, with: { path: /scratch, timeout: 0s } }", "0s")
                .endsWith("must be longer than 0s"));
    }
}
