package dev.nhc.checks.gpu.nvml;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.PointerByReference;
import dev.nhc.checks.gpu.GpuCallException;
import dev.nhc.checks.gpu.GpuCallException.Kind;
import dev.nhc.checks.gpu.PciBusId;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One GPU of a session: its handle, and the daemon thread all its NVML calls run on. A call that
 * does not return within its limit leaves that thread blocked and marks the GPU hung; until the
 * blocked call returns, every later call to this GPU fails at once with the same message instead
 * of queueing behind it. Other GPUs are unaffected: each has its own thread.
 */
final class NvmlGpu {

    /** The body of one NVML call, run on the GPU's thread. */
    interface Call<T> {
        T run(NvmlLibrary lib, Pointer handle) throws GpuCallException;
    }

    private record Hang(String call, Duration limit, Future<?> blocked) {
    }

    private final NvmlLibrary lib;
    private final int index;
    private final ExecutorService thread;
    private final Future<Opened> opened;
    private volatile Hang hang;
    private volatile String pciBusId;

    private record Opened(Pointer handle, String pciBusId) {
    }

    NvmlGpu(NvmlLibrary lib, int index, Duration callLimit) {
        this.lib = lib;
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

    private Opened open() throws GpuCallException {
        PointerByReference ref = new PointerByReference();
        check(lib.nvmlDeviceGetHandleByIndex_v2(index, ref), "nvmlDeviceGetHandleByIndex_v2", false);
        Pointer handle = ref.getValue();
        Memory pci = new Memory(NvmlLibrary.PCI_INFO_SIZE);
        pci.clear();
        int rc = lib.nvmlDeviceGetPciInfo_v3(handle, pci);
        String bus = null;
        if (rc == NvmlReturn.SUCCESS) {
            bus = PciBusId.normalize(pci.getString(NvmlLibrary.PCI_INFO_BUS_ID_OFFSET));
            pciBusId = bus;
        } else if (rc != NvmlReturn.NOT_SUPPORTED) {
            check(rc, "nvmlDeviceGetPciInfo_v3", false);
        }
        return new Opened(handle, bus);
    }

    /**
     * Runs one call on this GPU's thread and waits at most {@code deadline.nextCall()}. Returns the
     * call's value, null for NOT_SUPPORTED.
     */
    <T> T call(String name, Deadline deadline, Call<T> body) throws GpuCallException {
        Hang h = hang;
        if (h != null) {
            if (!h.blocked().isDone()) {
                throw hung(h);
            }
            hang = null;    // the blocked call came back; the GPU gets another chance
        }
        Pointer handle = await(opened, "nvmlDeviceGetHandleByIndex_v2", deadline).handle();
        Future<T> f = thread.submit(() -> body.run(lib, handle));
        return await(f, name, deadline);
    }

    /** Waits for the handle (without making a call); throws what opening the GPU threw. */
    void awaitOpen(Deadline deadline) throws GpuCallException {
        Hang h = hang;
        if (h != null && !h.blocked().isDone()) {
            throw hung(h);
        }
        await(opened, "nvmlDeviceGetHandleByIndex_v2", deadline);
    }

    private <T> T await(Future<T> f, String name, Deadline deadline) throws GpuCallException {
        Duration limit = deadline.nextCall();
        try {
            return f.get(limit.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            Hang h;
            synchronized (this) {
                // A call queued behind an earlier hung one reports the one that actually blocked.
                if (hang == null || hang.blocked().isDone()) {
                    hang = new Hang(name, limit, f);
                }
                h = hang;
            }
            throw hung(h);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof GpuCallException g) {
                throw g;
            }
            throw new GpuCallException(Kind.ERROR, name, label() + ": " + name + " failed: " + e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new GpuCallException(Kind.ERROR, name, label() + ": interrupted while waiting for " + name);
        }
    }

    private GpuCallException hung(Hang h) {
        return new GpuCallException(Kind.HUNG, h.call(), label() + " not responding: " + h.call() + " blocked > "
                + NvmlCallRunner.format(h.limit()));
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
        String what = name + " returned " + NvmlSession.describe(lib, rc);
        if (NvmlReturn.gpuLost(rc)) {
            throw new GpuCallException(Kind.LOST, name, label() + " is lost: " + what);
        }
        throw new GpuCallException(Kind.ERROR, name, label() + ": " + what);
    }

    void close() {
        thread.shutdown();
    }
}
