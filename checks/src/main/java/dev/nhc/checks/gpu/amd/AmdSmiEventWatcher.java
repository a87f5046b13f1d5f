package dev.nhc.checks.gpu.amd;

import dev.nhc.checks.gpu.calls.LibrarySession;
import dev.nhc.checks.gpu.calls.LoadFailure;
import dev.nhc.engine.files.IoReason;
import dev.nhc.engine.files.UntrustedPathException;

import java.io.IOException;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Waits for AMD SMI's GPU events ({@code amdsmi_get_gpu_event_notification}: GPU resets, ring
 * hangs, thermal throttling, VM faults) on its own thread and tells a listener at once, so that the
 * daemon re-evaluates the GPU checks within a second of a reset instead of at the next interval,
 * as {@link dev.nhc.checks.gpu.nvml.XidEventWatcher} does for NVIDIA's XIDs.
 */
public final class AmdSmiEventWatcher implements AutoCloseable {
    /** How long one wait blocks; also the most a close waits for the thread. */
    static final int WAIT_MS = 500;
    /** Events read per wait. */
    private static final int BATCH = 16;
    /** The events nhc asks for: all five (a VM fault is the job's, and only re-runs the checks). */
    private static final long MASK = mask(AmdGpuEvents.Type.values());

    /** The listener learns of each event; {@code event} null when the wait itself failed (the GPUs are worth a look). */
    @FunctionalInterface
    public interface Listener {
        void onEvent(AmdGpuEvents.Event event);
    }

    private final List<Long> handles;
    private final Map<Long, Integer> indexOf;
    private final Map<Integer, String> pciOf;
    private final Listener listener;
    private final java.time.Clock clock;
    private final Thread thread;
    private volatile boolean closed;

    private AmdSmiEventWatcher(List<Long> handles, Map<Long, Integer> indexOf, Map<Integer, String> pciOf, Listener listener,
                               java.time.Clock clock) {
        this.handles = handles;
        this.indexOf = indexOf;
        this.pciOf = pciOf;
        this.listener = listener;
        this.clock = clock;
        this.thread = new Thread(this::loop, "amdsmi-events");
        thread.setDaemon(true);
    }

    private static long mask(AmdGpuEvents.Type... types) {
        long m = 0;
        for (AmdGpuEvents.Type t : types) {
            m |= t.mask();
        }
        return m;
    }

    /**
     * Binds AMD SMI from {@code library} (null: the system's), asks every GPU for its events and
     * starts watching; null when there is nothing to watch: no AMD GPU, or no AMD SMI installed
     * under its usual name or no amdgpu driver loaded while no library is configured.
     *
     * @throws IllegalStateException with a message naming the library and call when AMD SMI cannot be used
     */
    public static AmdSmiEventWatcher start(String library, Listener listener, java.time.Clock clock) {
        boolean configured = library != null && !library.isBlank();
        String lib = LibrarySession.resolve(library, AmdSmiSession.DEFAULT_LIBRARY);
        try {
            AmdSmiNative.bind(lib);
        } catch (UnsatisfiedLinkError | NoClassDefFoundError e) {
            if (!configured) {
                return null;
            }
            throw new IllegalStateException("AMD SMI (" + lib + ") cannot be loaded: " + LoadFailure.firstReason(e));
        } catch (UntrustedPathException e) {
            throw new IllegalStateException("refusing to load AMD SMI (" + lib + ") as root: " + e.getMessage());
        } catch (IOException e) {
            if (!configured) {
                return null;
            }
            throw new IllegalStateException("AMD SMI (" + lib + ") cannot be loaded: " + IoReason.of(e));
        }
        int rc = AmdSmiNative.amdsmi_init(AmdSmiNative.INIT_AMD_GPUS);
        if (rc == AmdSmiStatus.DRIVER_NOT_LOADED && !configured) {
            return null;
        }
        check(rc, lib, "amdsmi_init");
        List<Long> gpus;
        try {
            gpus = AmdSmiHandles.gpus(() -> { });
        } catch (AmdSmiHandles.Refused e) {
            throw new IllegalStateException("AMD SMI (" + lib + "): " + e.call + " returned " + AmdSmiSession.describe(e.status));
        }
        List<Long> watched = new ArrayList<>();
        Map<Long, Integer> indexOf = new HashMap<>();
        Map<Integer, String> pciOf = new HashMap<>();
        for (int i = 0; i < gpus.size(); i++) {
            long h = gpus.get(i);
            // A GPU that refuses (a VF, an old kernel) still has its resets in the kernel log for kernel.log to see.
            if (AmdSmiNative.amdsmi_init_gpu_event_notification(h) != AmdSmiStatus.SUCCESS) {
                continue;
            }
            if (AmdSmiNative.amdsmi_set_gpu_event_notification_mask(h, MASK) != AmdSmiStatus.SUCCESS) {
                AmdSmiNative.amdsmi_stop_gpu_event_notification(h);
                continue;
            }
            watched.add(h);
            indexOf.put(h, i);
            long[] bdf = new long[1];
            if (AmdSmiNative.amdsmi_get_gpu_device_bdf(h, bdf) == AmdSmiStatus.SUCCESS) {
                pciOf.put(i, AmdSmiStructs.bdf(bdf[0]));
            }
        }
        if (gpus.isEmpty()) {
            return null;    // no AMD GPUs: nothing to watch
        }
        if (watched.isEmpty()) {
            throw new IllegalStateException("AMD SMI (" + lib + "): no GPU accepts event notification");
        }
        AmdSmiEventWatcher w = new AmdSmiEventWatcher(List.copyOf(watched), Map.copyOf(indexOf), Map.copyOf(pciOf), listener, clock);
        w.thread.start();
        return w;
    }

    /** How many GPUs are being watched. */
    public int gpus() {
        return handles.size();
    }

    private void loop() {
        byte[] data = new byte[AmdSmiStructs.EVENT_DATA_SIZE * BATCH];
        while (!closed) {
            int[] count = {BATCH};
            int rc = AmdSmiNative.amdsmi_get_gpu_event_notification(WAIT_MS, count, data);
            if (closed) {
                return;
            }
            if (rc == AmdSmiStatus.SUCCESS) {
                ByteBuffer b = AmdSmiStructs.le(data);
                for (int i = 0; i < Math.min(count[0], BATCH); i++) {
                    int at = i * AmdSmiStructs.EVENT_DATA_SIZE;
                    AmdGpuEvents.Type type = AmdGpuEvents.Type.of(b.getInt(at + AmdSmiStructs.EVENT_TYPE));
                    if (type == null) {
                        continue;   // an event a newer library added: nothing nhc judges
                    }
                    Integer gpu = indexOf.get(b.getLong(at));
                    String message = AmdSmiStructs.text(data, at + AmdSmiStructs.EVENT_MESSAGE, AmdSmiStructs.EVENT_MESSAGE_LEN);
                    listener.onEvent(new AmdGpuEvents.Event(gpu == null ? -1 : gpu, gpu == null ? null : pciOf.get(gpu), type, message,
                            clock.instant()));
                }
            } else if (rc != AmdSmiStatus.NO_DATA) {
                // A failing wait (the driver gone) is itself news for the GPU checks; then back off.
                listener.onEvent(null);
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
            for (long h : handles) {
                AmdSmiNative.amdsmi_stop_gpu_event_notification(h);
            }
        }
        // No amdsmi_shut_down: the GPU probes' session shares the library for the life of the process.
    }

    private static void check(int rc, String lib, String call) {
        if (rc != AmdSmiStatus.SUCCESS) {
            throw new IllegalStateException("AMD SMI (" + lib + "): " + call + " returned " + AmdSmiSession.describe(rc));
        }
    }
}
