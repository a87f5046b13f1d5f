package dev.nhc.checks.gpu.calls;

import dev.nhc.checks.gpu.GpuCallException;
import dev.nhc.checks.gpu.GpuDevice;

import java.util.ArrayList;
import java.util.List;

/**
 * What a GPU read through any vendor's library has in common, for one probe: its index, and its
 * PCI address as opening its handle learnt it (waited for within the probe's deadline), by which
 * messages name it, and the values the library refused. The vendor's device answers the rest in its
 * own library's calls, each between {@link #begin} and {@link #present}.
 */
public abstract class LibraryDevice implements GpuDevice {
    protected final GpuCalls calls;
    protected final Deadline deadline;
    private final List<String> problems = new ArrayList<>();

    protected LibraryDevice(GpuCalls calls, Deadline deadline) {
        this.calls = calls;
        this.deadline = deadline;
    }

    @Override
    public int index() {
        return calls.index();
    }

    @Override
    public String pciBusId() {
        if (calls.pciBusId() == null && !calls.onWorker()) {
            try {
                calls.awaitOpen(deadline);
            } catch (GpuCallException e) {
                return null;    // the failure surfaces with the first real call
            }
        }
        return calls.pciBusId();
    }

    @Override
    public String label() {
        pciBusId();
        return calls.label();
    }

    @Override
    public synchronized List<String> problems() {
        return List.copyOf(problems);
    }

    /** Marks the call {@code name} in flight on this GPU's thread; the GPU's handle. */
    protected final long begin(String name) throws GpuCallException {
        return calls.begin(name);
    }

    /**
     * Ends the call in flight and judges its status: true for a value, false for "not supported" or
     * for a refusal kept as a problem; an error that condemns the GPU (lost, hung) is thrown.
     */
    protected final boolean present(String name, int rc) throws GpuCallException {
        calls.end();
        try {
            return check(rc, name);
        } catch (GpuCallException e) {
            if (e.condemnsGpu()) {
                throw e;
            }
            synchronized (this) {
                problems.add(e.getMessage());
            }
            return false;
        }
    }

    /** The library's status {@code rc} of call {@code name}: true for success, false for "not supported", else the error. */
    protected abstract boolean check(int rc, String name) throws GpuCallException;
}
