package dev.nhc.checks.gpu.calls;

import dev.nhc.checks.gpu.GpuCallException;
import dev.nhc.checks.gpu.GpuCallException.Kind;
import dev.nhc.checks.gpu.GpuDevice;
import dev.nhc.checks.gpu.GpuScan;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One GPU of a library session: its handle, and the daemon thread all its library calls run on,
 * whichever vendor's library that is.
 *
 * <p>The deadline is enforced from outside the call: the thread that wants a value waits for the
 * GPU's thread with a timeout, watching which library function is in flight and since when. A
 * call that runs longer than the per-call limit (or past the probe's deadline) leaves the GPU's
 * thread blocked and marks the GPU hung, naming that function; until it returns, every later
 * call to this GPU fails at once with the same message instead of queueing behind it. Other GPUs
 * are unaffected: each has its own thread. A probe's whole reading of a GPU runs as one task on
 * that thread ({@link #batch}), so its many calls cost no hand-off each.
 */
public final class GpuCalls {

    /** Opens the GPU's handle on its own thread (through {@link #traced}, so a hang names the call). */
    @FunctionalInterface
    public interface Opener {
        Opened open(GpuCalls calls) throws GpuCallException;
    }

    /** The GPU's handle, and its PCI bus id when it could be read (else null). */
    public record Opened(long handle, String pciBusId) {
    }

    private record Hang(String call, Duration blocked, Future<?> task) {
    }

    private record InFlight(String call, long sinceNanos) {
    }

    private final int index;
    private final String library;
    private final String openCall;
    private final ExecutorService thread;
    private final Future<Opened> opened;
    private volatile Thread worker;
    private volatile InFlight inFlight;
    private volatile Hang hang;
    private volatile String pciBusId;

    /**
     * @param library  how messages name the library ("NVML", "AMD SMI")
     * @param openCall the function that opens the handle, named when opening itself fails
     */
    public GpuCalls(String threadName, int index, String library, String openCall, Opener opener) {
        this.index = index;
        this.library = library;
        this.openCall = openCall;
        this.thread = CallThreads.singleThread(threadName);
        this.opened = thread.submit(() -> {
            worker = Thread.currentThread();
            Opened o = opener.open(this);
            pciBusId = o.pciBusId();
            return o;
        });
    }

    public int index() {
        return index;
    }

    /** Known once the handle is open and the PCI address read; null before or if that failed. */
    public String pciBusId() {
        return pciBusId;
    }

    public String label() {
        String bus = pciBusId;
        return "GPU " + index + (bus == null ? "" : " (" + bus + ")");
    }

    /** Runs {@code c} on this GPU's thread, recording it as the call in flight for whoever is waiting. */
    public <T> T traced(String name, Callable<T> c) throws GpuCallException {
        inFlight = new InFlight(name, System.nanoTime());
        try {
            return c.call();
        } catch (GpuCallException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new GpuCallException(Kind.ERROR, name, label() + ": " + name + " failed: " + e);
        } finally {
            inFlight = null;
        }
    }

    /** Runs a probe's whole reading of this GPU on the GPU's thread, under the same per-call watch. */
    public <T> T batch(Deadline deadline, GpuDevice.Batch<T> work) throws GpuCallException {
        if (Thread.currentThread() == worker) {
            return work.run();
        }
        refuseIfHung();
        await(opened, openCall, deadline);
        return await(thread.submit(work::run), null, deadline);
    }

    /** Whether the caller is this GPU's own thread (inside a {@link #batch}). */
    public boolean onWorker() {
        return Thread.currentThread() == worker;
    }

    /**
     * On the GPU's thread: records {@code name} as the call in flight for whoever waits, and
     * returns the handle to make it with. {@link #end} must follow the call.
     */
    public long begin(String name) throws GpuCallException {
        long handle = handleOnWorker();
        inFlight = new InFlight(name, System.nanoTime());
        return handle;
    }

    public void end() {
        inFlight = null;
    }

    /** Waits for the handle (without making a call); throws what opening the GPU threw. */
    public void awaitOpen(Deadline deadline) throws GpuCallException {
        refuseIfHung();
        await(opened, openCall, deadline);
    }

    private long handleOnWorker() throws GpuCallException {
        try {
            return opened.get().handle();    // done: opening ran first on this very thread
        } catch (ExecutionException e) {
            throw e.getCause() instanceof GpuCallException g ? g : new GpuCallException(Kind.ERROR, openCall, label() + ": " + GpuScan.describe(e.getCause()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new GpuCallException(Kind.ERROR, openCall, label() + ": interrupted");
        }
    }

    private void refuseIfHung() throws GpuCallException {
        Hang h = hang;
        if (h != null) {
            if (!h.task().isDone()) {
                throw hung(h);
            }
            hang = null;    // the blocked call came back; the GPU gets another chance
        }
    }

    /**
     * Waits for {@code f} while watching the call in flight on the GPU's thread: gives up when that
     * call has run longer than the per-call limit, or when the probe's time is up.
     */
    private <T> T await(Future<T> f, String queuedName, Deadline deadline) throws GpuCallException {
        long start = System.nanoTime();
        long end = Math.max(deadline.endNanos(), start + Deadline.MIN_NANOS);
        long limit = deadline.callLimitNanos();
        try {
            while (true) {
                long now = System.nanoTime();
                InFlight cur = inFlight;
                long callEnd = cur == null ? now + limit : cur.sinceNanos() + limit;
                long until = Math.min(callEnd, end);
                try {
                    return f.get(Math.max(until - now, 1_000_000L), TimeUnit.NANOSECONDS);
                } catch (TimeoutException e) {
                    now = System.nanoTime();
                    cur = inFlight;
                    boolean callTooLong = cur != null && now - cur.sinceNanos() >= limit;
                    if (callTooLong || now >= end) {
                        throw hung(markHung(cur == null ? queuedName : cur.call(),
                                Duration.ofNanos(cur == null ? now - start : Math.min(limit, now - cur.sinceNanos())), f));
                    }
                }
            }
        } catch (ExecutionException e) {
            if (e.getCause() instanceof GpuCallException g) {
                throw g;
            }
            throw new GpuCallException(Kind.ERROR, String.valueOf(queuedName), label() + ": reading failed: " + GpuScan.describe(e.getCause()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new GpuCallException(Kind.ERROR, String.valueOf(queuedName), label() + ": interrupted while waiting for its " + library + " thread");
        }
    }

    private synchronized Hang markHung(String call, Duration blocked, Future<?> task) {
        // A task queued behind an earlier hung one reports the call that actually blocked.
        if (hang == null || hang.task().isDone()) {
            hang = new Hang(call, blocked, task);
        }
        return hang;
    }

    private GpuCallException hung(Hang h) {
        if (h.call() == null) {
            // no library call was in flight: the GPU's thread was still busy with earlier reads when time ran out
            return new GpuCallException(Kind.HUNG, "(none)", label() + " not responding: its " + library + " reads did not finish within "
                    + CallThreads.format(h.blocked()));
        }
        return new GpuCallException(Kind.HUNG, h.call(), label() + " not responding: " + h.call() + " blocked > "
                + CallThreads.format(h.blocked()));
    }

    public void close() {
        thread.shutdown();
    }
}
