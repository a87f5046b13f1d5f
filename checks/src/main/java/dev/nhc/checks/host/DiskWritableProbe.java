package dev.nhc.checks.host;

import dev.nhc.model.Finding;
import dev.nhc.model.Observation;
import dev.nhc.model.Severity;
import dev.nhc.probe.ParamSpec;
import dev.nhc.probe.ParamType;
import dev.nhc.probe.Probe;
import dev.nhc.probe.ProbeContext;
import dev.nhc.probe.ProbeResult;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.engine.run.PlanExecutor;
import dev.nhc.units.Unit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@code disk.writable}: creates, writes and removes a small file in a directory. The I/O runs in
 * its own daemon thread and the probe stops waiting after {@code timeout} (or what is left of the
 * check's time), so a hung NFS server makes this check FAIL on time instead of hanging the run; the
 * stuck thread is left behind and removes its file if the server ever answers. Until it does, later
 * runs (the daemon's) fail at once instead of stranding another thread.
 *
 * <p>The directory is resolved under the system root ({@code settings.root}, "/" in production),
 * like the /proc and /sys files, so that tests can point it at a temp directory.
 */
public final class DiskWritableProbe implements Probe {
    /** The file operations; tests substitute one that blocks to stand for a server that never answers. */
    interface WriteTest {
        void run(Path dir, String prefix) throws IOException;
    }

    /** Keeps a little of the check's time for reporting, so the probe answers before the runner abandons it. */
    private static final Duration MARGIN = Duration.ofMillis(250);

    private static final ProbeSpec SPEC = ProbeSpec.builder("disk.writable",
                    "A directory accepts a new file: creates a uniquely named file (.nhc-write-<host>-…), writes a "
                            + "few bytes, closes and removes it. Fails when that errs (e.g. Read-only file system) or "
                            + "does not finish within the timeout (a hung NFS or Lustre server); while such an attempt "
                            + "is still stuck, later runs fail at once instead of starting another.")
            .entities("the directory given by 'path'")
            .param(ParamSpec.required("path", ParamType.STRING, "directory to write in, e.g. /scratch or /tmp"))
            .param(ParamSpec.optional("timeout", ParamType.DURATION, Duration.ofSeconds(5),
                    "give up and fail after this long (never longer than the check's own timeout)"))
            .field("writable", Unit.BOOLEAN, "the file could be created, written and removed (absent after a timeout)")
            .field("write_seconds", Unit.SECONDS, "how long creating, writing and removing took")
            .build();

    private final WriteTest writeTest;
    /**
     * Directories whose write test is still stuck, with when it started (nanoTime). The daemon runs
     * this check again and again; without this, every run against a dead server would strand one
     * more thread in the kernel.
     */
    private final Map<Path, Long> stuck = new ConcurrentHashMap<>();

    public DiskWritableProbe() {
        this(DiskWritableProbe::createWriteRemove);
    }

    DiskWritableProbe(WriteTest writeTest) {
        this.writeTest = writeTest;
    }

    @Override
    public ProbeSpec spec() {
        return SPEC;
    }

    @Override
    public ProbeResult probe(ProbeContext ctx) throws Exception {
        String path = ctx.params().string("path");
        if (path == null || !path.startsWith("/")) {
            throw new IllegalArgumentException("path '" + path + "' must be an absolute directory such as /scratch");
        }
        Path dir = ctx.sys(path);
        Duration limit = limit(ctx.params().duration("timeout"), ctx.remaining());
        String prefix = ".nhc-write-" + ctx.hostname() + "-";

        ProbeResult.Builder result = ProbeResult.builder();
        long start = System.nanoTime();
        Long earlier = stuck.putIfAbsent(dir, start);
        if (earlier != null) {
            Duration since = Duration.ofNanos(start - earlier);
            return result.observe(Observation.of(path).build())
                    .finding(Finding.of(path, Severity.FAIL, path + " did not answer: a write test started "
                            + PlanExecutor.human(since) + " ago is still waiting"))
                    .build();
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        Thread worker = new Thread(() -> {
            try {
                writeTest.run(dir, prefix);
                done.complete(null);
            } catch (Throwable t) {
                done.completeExceptionally(t);
            } finally {
                stuck.remove(dir);
            }
        }, "nhc-writable " + path);
        worker.setDaemon(true);
        worker.start();
        try {
            done.get(limit.toNanos(), TimeUnit.NANOSECONDS);
            double seconds = (System.nanoTime() - start) / 1e9;
            return result.observe(Observation.of(path).put("writable", true).put("write_seconds", seconds).build()).build();
        } catch (TimeoutException e) {
            worker.interrupt();
            return result.observe(Observation.of(path).build())
                    .finding(Finding.of(path, Severity.FAIL, path + " did not answer within " + PlanExecutor.human(limit)))
                    .build();
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof IOException io)) {
                throw e.getCause() instanceof Exception cause ? cause : e;
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            return result.observe(Observation.of(path).put("writable", false).put("write_seconds", seconds).build())
                    .finding(Finding.of(path, Severity.FAIL, path + " is not writable: " + SysFiles.reason(io)))
                    .build();
        } catch (InterruptedException e) {
            // The runner gave up on this check; the worker is abandoned with it.
            worker.interrupt();
            throw e;
        }
    }

    static Duration limit(Duration timeout, Duration remaining) {
        Duration usable = remaining.compareTo(MARGIN.multipliedBy(2)) > 0 ? remaining.minus(MARGIN) : remaining.dividedBy(2);
        return timeout.compareTo(usable) < 0 ? timeout : usable;
    }

    private static void createWriteRemove(Path dir, String prefix) throws IOException {
        Path file = Files.createTempFile(dir, prefix, ".tmp");
        try {
            // Closing is what reports a failed write on NFS (close-to-open), so write and close, no fsync.
            Files.write(file, "nhc write test\n".getBytes(StandardCharsets.US_ASCII));
        } catch (IOException e) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException ignored) {
                // The write's error is the one to report.
            }
            throw e;
        }
        Files.delete(file);
    }
}
