package dev.nhc.checks.gpu.nvml;

import com.sun.jna.Native;
import dev.nhc.checks.gpu.PciBusId;
import dev.nhc.checks.gpu.calls.LibrarySession;
import dev.nhc.checks.gpu.calls.LoadFailure;
import dev.nhc.engine.files.IoReason;
import dev.nhc.engine.files.UntrustedPathException;

import java.io.IOException;
import java.util.Arrays;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HashMap;
import java.util.Map;

/**
 * Waits for NVML's critical-XID events ({@code nvmlEventSetWait_v2}) on its own thread and tells a
 * listener at once, so that the daemon re-evaluates the GPU checks within a second of a fatal XID
 * instead of at the next interval. The listener only learns that something happened; the GPU
 * checks then read the GPUs (and the kernel log) as usual and decide.
 */
public final class XidEventWatcher implements AutoCloseable {
    /** How long one wait blocks; also the most a close waits for the thread. */
    static final int WAIT_MS = 500;

    /**
     * {@code gpu} is the GPU's index, -1 when NVML could not say; {@code pciBusId} its PCI bus id,
     * null when unknown; {@code xid} is -1 when the wait itself failed.
     */
    @FunctionalInterface
    public interface Listener {
        void onXid(int gpu, String pciBusId, long xid);
    }

    private final long set;
    private final Map<Long, Integer> indexOf;
    private final Map<Integer, String> pciOf;
    private final Listener listener;
    private final Thread thread;
    private volatile boolean closed;

    private XidEventWatcher(long set, Map<Long, Integer> indexOf, Map<Integer, String> pciOf, Listener listener) {
        this.set = set;
        this.indexOf = indexOf;
        this.pciOf = pciOf;
        this.listener = listener;
        this.thread = new Thread(this::loop, "nvml-xid-events");
        thread.setDaemon(true);
    }

    /**
     * Binds NVML from {@code library}, registers every GPU that supports it for critical XIDs and
     * starts watching.
     *
     * @throws IllegalStateException with a message naming the library and call when NVML cannot be used
     */
    public static XidEventWatcher start(String library, Listener listener) {
        String lib = LibrarySession.resolve(library, NvmlSession.DEFAULT_LIBRARY);
        try {
            NvmlNative.bind(lib);
        } catch (UnsatisfiedLinkError | NoClassDefFoundError e) {
            throw new IllegalStateException("NVML (" + lib + ") cannot be loaded: " + LoadFailure.firstReason(e));
        } catch (UntrustedPathException e) {
            throw new IllegalStateException("refusing to load NVML (" + lib + ") as root: " + e.getMessage());
        } catch (IOException e) {
            throw new IllegalStateException("NVML (" + lib + ") cannot be loaded: " + IoReason.of(e));
        }
        check(NvmlNative.nvmlInit_v2(), lib, "nvmlInit_v2");
        int[] count = new int[1];
        check(NvmlNative.nvmlDeviceGetCount_v2(count), lib, "nvmlDeviceGetCount_v2");
        long[] set = new long[1];
        check(NvmlNative.nvmlEventSetCreate(set), lib, "nvmlEventSetCreate");
        Map<Long, Integer> indexOf = new HashMap<>();
        Map<Integer, String> pciOf = new HashMap<>();
        for (int i = 0; i < count[0]; i++) {
            long[] dev = new long[1];
            if (NvmlNative.nvmlDeviceGetHandleByIndex_v2(i, dev) != NvmlReturn.SUCCESS) {
                continue; // a GPU NVML cannot even open is the inventory check's finding, not the watcher's
            }
            // NOT_SUPPORTED on some boards: that GPU's XIDs still reach the kernel-log check on schedule.
            if (NvmlNative.nvmlDeviceRegisterEvents(dev[0], NvmlNative.EVENT_TYPE_XID_CRITICAL_ERROR, set[0]) == NvmlReturn.SUCCESS) {
                indexOf.put(dev[0], i);
                byte[] pci = new byte[NvmlNative.PCI_INFO_SIZE];
                if (NvmlNative.nvmlDeviceGetPciInfo_v3(dev[0], pci) == NvmlReturn.SUCCESS) {
                    pciOf.put(i, PciBusId.normalize(Native.toString(Arrays.copyOfRange(pci, NvmlNative.PCI_INFO_BUS_ID_OFFSET, pci.length))));
                }
            }
        }
        if (indexOf.isEmpty()) {
            NvmlNative.nvmlEventSetFree(set[0]);
            throw new IllegalStateException("NVML (" + lib + "): no GPU accepts XID event registration");
        }
        XidEventWatcher w = new XidEventWatcher(set[0], Map.copyOf(indexOf), Map.copyOf(pciOf), listener);
        w.thread.start();
        return w;
    }

    /** How many GPUs are being watched. */
    public int gpus() {
        return indexOf.size();
    }

    private void loop() {
        byte[] data = new byte[NvmlNative.EVENT_DATA_SIZE];
        while (!closed) {
            int rc = NvmlNative.nvmlEventSetWait_v2(set, data, WAIT_MS);
            if (closed) {
                return;
            }
            if (rc == NvmlReturn.SUCCESS) {
                ByteBuffer event = ByteBuffer.wrap(data).order(ByteOrder.nativeOrder());
                Integer gpu = indexOf.get(event.getLong(0));
                listener.onXid(gpu == null ? -1 : gpu, gpu == null ? null : pciOf.get(gpu), event.getLong(16));
            } else if (rc != NvmlReturn.TIMEOUT) {
                // A failing wait (GPU lost, driver gone) is itself news for the GPU checks; then back off.
                listener.onXid(-1, null, -1);
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            thread.join(WAIT_MS * 2L);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (!thread.isAlive()) {
            NvmlNative.nvmlEventSetFree(set);
        }
        // No nvmlShutdown: the GPU probes' session shares the library for the life of the process.
    }

    private static void check(int rc, String lib, String call) {
        if (rc != NvmlReturn.SUCCESS) {
            throw new IllegalStateException("NVML (" + lib + "): " + call + " returned " + NvmlSession.describe(rc));
        }
    }
}
