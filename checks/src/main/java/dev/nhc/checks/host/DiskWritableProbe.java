package dev.nhc.checks.host;

import dev.nhc.model.Entity;
import dev.nhc.model.Observation;
import dev.nhc.probe.DefaultRule;
import dev.nhc.probe.ParamSpec;
import dev.nhc.probe.Probe;
import dev.nhc.probe.ProbeContext;
import dev.nhc.probe.ProbeResult;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.probe.Tags;
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
 * check's time), so a hung NFS server is observed as {@code answered: false} on time instead of
 * hanging the run; the stuck thread is left behind and removes its file if the server ever answers.
 * Until it does, later runs (the daemon's) report the earlier attempt at once instead of stranding
 * another thread.
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

    static final ParamSpec<String> PATH = ParamSpec.text("path", "directory to write in, e.g. /scratch or /tmp")
            .required().check(MountTable::notAbsolute);
    static final ParamSpec<Duration> TIMEOUT = ParamSpec.duration("timeout",
                    "give up and fail after this long (never longer than the check's own timeout)")
            .defaultValue(Duration.ofSeconds(5))
            .check(d -> d.isNegative() || d.isZero() ? "must be longer than 0s" : null);

    private static final String NO_ANSWER = "{entity} did not answer within {time_limit}";

    private static final ProbeSpec SPEC = ProbeSpec.builder("disk.writable",
                    "A directory accepts a new file: creates a uniquely named file (.nhc-write-<host>-…), writes a "
                            + "few bytes, closes and removes it. Fails when that errs (e.g. Read-only file system) or "
                            + "does not finish within the timeout (a hung NFS or Lustre server); while such an attempt "
                            + "is still stuck, later runs fail at once instead of starting another.")
            .tags(Tags.HOST, Tags.STORAGE)
            .entities(Entity.Kind.PATH, "the directory given by 'path'")
            .param(PATH)
            .param(TIMEOUT)
            .field("answered", Unit.BOOLEAN, "the write test finished, either way, within the timeout")
            .field("writable", Unit.BOOLEAN, "the file could be created, written and removed (absent when the test did not answer)")
            .field("error", Unit.TEXT, "why the file could not be written, as the system says it (e.g. Read-only file system)")
            .field("write_seconds", Unit.SECONDS, "how long creating, writing and removing took (absent when the test did not answer)")
            .field("waited_seconds", Unit.SECONDS, "when the test did not answer: how long this run waited for it, or how long "
                    + "the earlier test that is still stuck has been waiting")
            .field("earlier_test_stuck", Unit.BOOLEAN, "an earlier run's write test is still waiting for the filesystem, "
                    + "so this run did not start another")
            .field("time_limit", Unit.SECONDS, "when this run's test did not answer: the time it was given (the timeout parameter, "
                    + "or the check's own when shorter)")
            .optional("error", "waited_seconds", "earlier_test_stuck", "time_limit")
            .rule(DefaultRule.fail(AllOf.of("answered", false, "earlier_test_stuck", true),
                    "{entity} did not answer: a write test started {waited_seconds} ago is still waiting"))
            .rule(DefaultRule.fail(Map.of("answered", false), NO_ANSWER))
            .rule(DefaultRule.fail(Map.of("writable", false), "{entity} is not writable: {error}"))
            // A check whose own fail: replaces the rules above still must not pass a filesystem that never answered.
            .rule(DefaultRule.unknown(Map.of("answered", false), NO_ANSWER))
            .build();

    private final WriteTest writeTest;
    /**
     * Directories whose write test is still stuck, with when it started (nanoTime). The daemon runs
     * this check again and again; without this, every run against a dead server would strand one
     * more thread in the kernel.
     */
    private final Map<Key, Long> stuck = new ConcurrentHashMap<>();

    /**
     * One probe serves every {@code disk.writable} check: two checks of one path each run their
     * own test, so one's test in flight is never the other's "earlier test".
     */
    private record Key(String check, Path dir) {
    }

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
        String path = PATH.get(ctx.params());
        Entity entity = Entity.of(Entity.Kind.PATH, path);
        Path dir = ctx.sys(path);
        Duration limit = limit(TIMEOUT.get(ctx.params()), ctx.remaining());
        String prefix = ".nhc-write-" + ctx.hostname() + "-";

        long start = System.nanoTime();
        Key key = new Key(ctx.checkName(), dir);
        Long earlier = stuck.putIfAbsent(key, start);
        if (earlier != null) {
            return ProbeResult.of(Observation.of(entity).put("answered", false).put("earlier_test_stuck", true)
                    .put("waited_seconds", seconds(start - earlier)).build());
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        Thread worker = new Thread(() -> {
            try {
                writeTest.run(dir, prefix);
                done.complete(null);
            } catch (Throwable t) {
                done.completeExceptionally(t);
            } finally {
                stuck.remove(key, start);
            }
        }, "nhc-writable " + path);
        worker.setDaemon(true);
        try {
            worker.start();
        } catch (RuntimeException | Error e) {
            // no test is running: an entry left here would fail this path for the daemon's lifetime
            stuck.remove(key, start);
            throw e;
        }
        try {
            done.get(limit.toNanos(), TimeUnit.NANOSECONDS);
            return ProbeResult.of(answered(entity, start).put("writable", true).build());
        } catch (TimeoutException e) {
            worker.interrupt();
            return ProbeResult.of(Observation.of(entity).put("answered", false).put("earlier_test_stuck", false)
                    .put("waited_seconds", seconds(limit.toNanos())).put("time_limit", ctx.timeLimit(TIMEOUT.get(ctx.params())).toMillis() / 1000.0)
                    .build());
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof IOException io)) {
                throw e.getCause() instanceof Exception cause ? cause : e;
            }
            return ProbeResult.of(answered(entity, start).put("writable", false).put("error", SysFiles.reason(io)).build());
        } catch (InterruptedException e) {
            // The runner gave up on this check; the worker is abandoned with it.
            worker.interrupt();
            throw e;
        }
    }

    private static Observation.Builder answered(Entity entity, long start) {
        return Observation.of(entity).put("answered", true).put("write_seconds", seconds(System.nanoTime() - start));
    }

    /** Milliseconds are enough for a message, and a rule about seconds. */
    private static double seconds(long nanos) {
        return Math.round(nanos / 1e6) / 1000.0;
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
