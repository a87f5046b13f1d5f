package dev.nhc.checks.gpu.calls;

import dev.nhc.checks.gpu.GpuScan;
import dev.nhc.checks.gpu.GpuSourceException;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * Loading and initialising one GPU library (load, init, count, driver version…) on the session's
 * own daemon thread, step by step, so that whoever waits for it can tell which step hangs: each
 * step may take the per-call limit from when it started, and a step that overruns is reported by
 * its own name (a GPU that hangs the count is not an init hang).
 *
 * @param <T> what opening yields (the GPU count, the driver version, handles…)
 */
public final class LibraryOpening<T> {
    /** The step of opening in progress. */
    private record Step(String call, long startedNanos) {
    }

    private final String library;
    private final String firstCall;
    private final CompletableFuture<T> opened;
    private volatile Step step;

    /**
     * @param library   how messages name the library: "NVML (libnvidia-ml.so.1)"
     * @param firstCall the init function, named when nothing was in flight yet
     * @param open      the steps; each names itself with {@link #starting} before its call, and
     *                  fails with {@link Failure} carrying a finished message
     */
    public LibraryOpening(String library, String firstCall, ExecutorService thread, Function<LibraryOpening<T>, T> open) {
        this.library = library;
        this.firstCall = firstCall;
        this.opened = CompletableFuture.supplyAsync(() -> open.apply(this), thread);
    }

    /** Names the step about to run. */
    public void starting(String call) {
        step = new Step(call, System.nanoTime());
    }

    /** Whether opening failed for good (a retry may succeed, e.g. after the driver was loaded); false while it is still running. */
    public boolean failed() {
        return opened.isCompletedExceptionally();
    }

    /** Whether opening succeeded. */
    public boolean succeeded() {
        return opened.isDone() && !opened.isCompletedExceptionally();
    }

    /** Waits for every step, each under its own per-call limit and all of them within {@code deadline}. */
    public T await(Deadline deadline) throws GpuSourceException {
        while (true) {
            Step s = step;
            long now = System.nanoTime();
            long wait = deadline.nextCall().toNanos();
            if (s != null) {
                wait = Math.max(Deadline.MIN_NANOS, Math.min(wait, s.startedNanos() + deadline.callLimitNanos() - now));
            }
            try {
                return opened.get(wait, TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                Step after = step;
                if (after != s && System.nanoTime() < deadline.endNanos()) {
                    continue; // the step that was slow finished; the next one gets its own limit
                }
                String call = after == null ? firstCall : after.call();
                long blocked = after == null ? wait : System.nanoTime() - after.startedNanos();
                throw GpuSourceException.hung(call, library + " is not responding: " + call + " blocked > "
                        + CallThreads.format(Duration.ofMillis(TimeUnit.NANOSECONDS.toMillis(blocked) / 100 * 100))
                        + "; the driver or a GPU is hung");
            } catch (ExecutionException e) {
                Throwable cause = e.getCause();
                if (cause instanceof Failure f) {
                    throw f.exception;
                }
                throw new GpuSourceException(library + " failed to open: " + GpuScan.describe(cause));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new GpuSourceException("interrupted while waiting for " + library + " to initialise");
            }
        }
    }

    /** Carries a finished exception out of the opening thread. */
    public static final class Failure extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final transient GpuSourceException exception;

        public Failure(GpuSourceException exception) {
            super(exception.getMessage(), null, false, false);
            this.exception = exception;
        }

        public Failure(String message) {
            this(new GpuSourceException(message));
        }
    }
}
