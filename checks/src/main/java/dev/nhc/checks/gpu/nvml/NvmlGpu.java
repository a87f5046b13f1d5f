package dev.nhc.checks.gpu.nvml;

import com.sun.jna.Native;
import dev.nhc.checks.gpu.GpuCallException;
import dev.nhc.checks.gpu.GpuCallException.Kind;
import dev.nhc.checks.gpu.GpuDevice;
import dev.nhc.checks.gpu.GpuScan;
import dev.nhc.checks.gpu.PciBusId;

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One GPU of a session: its handle, and the daemon thread all its NVML calls run on.
 *
 * <p>The deadline is enforced from outside the call: the thread that wants a value waits for the
 * GPU's thread with a timeout, watching which NVML function is in flight and since when. A call
 * that runs longer than the per-call limit (or past the probe's deadline) leaves the GPU's thread
 * blocked and marks the GPU hung, naming that function; until it returns, every later call to
 * this GPU fails at once with the same message instead of queueing behind it. Other GPUs are
 * unaffected: each has its own thread. A probe's whole reading of a GPU runs as one task on that
 * thread ({@link #batch}), so its many calls cost no hand-off each.
 */
final class NvmlGpu {

    private record Hang(String call, Duration blocked, Future<?> task) {
    }

    private record InFlight(String call, long sinceNanos) {
    }

    private static final String OPEN = "nvmlDeviceGetHandleByIndex_v2";

    private final int index;
    private final ExecutorService thread;
    private final Future<Long> opened;
    private volatile Thread worker;
    private volatile InFlight inFlight;
    private volatile Hang hang;
    private volatile String pciBusId;

    NvmlGpu(int index) {
        this.index = index;
        this.thread = NvmlCallRunner.singleThread("nvml-gpu-" + index);
        this.opened = thread.submit(this::open);
    }

    int index() {
        return index;
    }

    /** Known once the handle is open and the PCI info read; null before or if that failed. */
    String pciBusId() {
        return pciBusId;
    }

    String label() {
        String bus = pciBusId;
        return "GPU " + index + (bus == null ? "" : " (" + bus + ")");
    }

    private Long open() throws GpuCallException {
        worker = Thread.currentThread();
        long[] ref = new long[1];
        check(traced(OPEN, () -> NvmlNative.nvmlDeviceGetHandleByIndex_v2(index, ref)), OPEN, false);
        long handle = ref[0];
        byte[] pci = new byte[NvmlNative.PCI_INFO_SIZE];
        int rc = traced("nvmlDeviceGetPciInfo_v3", () -> NvmlNative.nvmlDeviceGetPciInfo_v3(handle, pci));
        if (rc == NvmlReturn.SUCCESS) {
            pciBusId = PciBusId.normalize(Native.toString(Arrays.copyOfRange(pci, NvmlNative.PCI_INFO_BUS_ID_OFFSET, pci.length)));
        } else if (rc != NvmlReturn.NOT_SUPPORTED) {
            check(rc, "nvmlDeviceGetPciInfo_v3", false);
        }
        return handle;
    }

    /** Runs {@code c} on this GPU's thread, recording it as the call in flight for whoever is waiting. */
    private <T> T traced(String name, Callable<T> c) throws GpuCallException {
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
    <T> T batch(Deadline deadline, GpuDevice.Batch<T> work) throws GpuCallException {
        if (Thread.currentThread() == worker) {
            return work.run();
        }
        refuseIfHung();
        await(opened, OPEN, deadline);
        return await(thread.submit(work::run), null, deadline);
    }

    /** Whether the caller is this GPU's own NVML thread (inside a {@link #batch}). */
    boolean onWorker() {
        return Thread.currentThread() == worker;
    }

    /**
     * On the GPU's thread: records {@code name} as the call in flight for whoever waits, and
     * returns the handle to make it with. {@link #end} must follow the call.
     */
    long begin(String name) throws GpuCallException {
        long handle = handleOnWorker();
        inFlight = new InFlight(name, System.nanoTime());
        return handle;
    }

    void end() {
        inFlight = null;
    }

    /** Waits for the handle (without making a call); throws what opening the GPU threw. */
    void awaitOpen(Deadline deadline) throws GpuCallException {
        refuseIfHung();
        await(opened, OPEN, deadline);
    }

    private long handleOnWorker() throws GpuCallException {
        try {
            return opened.get();    // done: opening ran first on this very thread
        } catch (ExecutionException e) {
            throw e.getCause() instanceof GpuCallException g ? g : new GpuCallException(Kind.ERROR, OPEN, label() + ": " + GpuScan.describe(e.getCause()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new GpuCallException(Kind.ERROR, OPEN, label() + ": interrupted");
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
            throw new GpuCallException(Kind.ERROR, String.valueOf(queuedName), label() + ": interrupted while waiting for its NVML thread");
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
            // no NVML call was in flight: the GPU's thread was still busy with earlier reads when time ran out
            return new GpuCallException(Kind.HUNG, "(none)", label() + " not responding: its NVML reads did not finish within "
                    + NvmlCallRunner.format(h.blocked()));
        }
        return new GpuCallException(Kind.HUNG, h.call(), label() + " not responding: " + h.call() + " blocked > "
                + NvmlCallRunner.format(h.blocked()));
    }

    /**
     * Turns a return code into a value decision: true for SUCCESS, false for NOT_SUPPORTED (the
     * field is absent) when {@code notSupportedIsAbsent}, an exception otherwise.
     */
    boolean check(int rc, String name, boolean notSupportedIsAbsent) throws GpuCallException {
        if (rc == NvmlReturn.SUCCESS) {
            return true;
        }
        if (rc == NvmlReturn.NOT_SUPPORTED && notSupportedIsAbsent) {
            return false;
        }
        String what = name + " returned " + NvmlSession.describe(rc);
        if (NvmlReturn.gpuLost(rc)) {
            throw new GpuCallException(Kind.LOST, name, label() + " is lost: " + what);
        }
        throw new GpuCallException(Kind.ERROR, name, label() + ": " + what);
    }

    void close() {
        thread.shutdown();
    }
}
