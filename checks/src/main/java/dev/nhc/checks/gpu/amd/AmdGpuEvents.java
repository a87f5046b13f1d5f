package dev.nhc.checks.gpu.amd;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The GPU events AMD SMI reported to the daemon's event watcher ({@link AmdSmiEventWatcher}),
 * waiting for {@code gpu.amd-events} to judge them (offered through ProbeContext#service; a
 * one-shot run has none). An event arrives here within milliseconds, so a GPU reset fails the
 * check — and, with Slurm, drains the node — within a second.
 */
public final class AmdGpuEvents {
    /** How many undrained events are kept; beyond that the oldest go (the check runs within a second of each). */
    static final int LIMIT = 10_000;

    /** amdsmi_evt_notification_type_t, the events nhc asks for (by their value). */
    public enum Type {
        VMFAULT(1), THERMAL_THROTTLE(2), GPU_PRE_RESET(3), GPU_POST_RESET(4), RING_HANG(5);

        final int value;

        Type(int value) {
            this.value = value;
        }

        /** The bit of amdsmi_set_gpu_event_notification_mask: 1 << (value - 1). */
        long mask() {
            return 1L << (value - 1);
        }

        static Type of(int value) {
            for (Type t : values()) {
                if (t.value == value) {
                    return t;
                }
            }
            return null;
        }

        /** "GPU pre-reset": how messages name it. */
        public String words() {
            return name().toLowerCase(Locale.ROOT).replace("gpu_", "GPU ").replace('_', ' ').replace("pre ", "pre-").replace("post ", "post-")
                    .replace("vmfault", "VM fault");
        }
    }

    /** One event: the GPU's AMD SMI index and PCI bus id (null when unknown), what happened, the library's message, when it came. */
    public record Event(int gpu, String pciBusId, Type type, String message, Instant at) {
    }

    private final ConcurrentLinkedQueue<Event> queue = new ConcurrentLinkedQueue<>();
    private volatile int watched;
    private final java.util.concurrent.atomic.AtomicLong dropped = new java.util.concurrent.atomic.AtomicLong();

    /** How many GPUs the daemon's watcher listens to (0: none, e.g. a host without AMD GPUs). */
    public void watching(int gpus) {
        watched = gpus;
    }

    public int watched() {
        return watched;
    }

    public void add(Event e) {
        queue.add(e);
        while (queue.size() > LIMIT) {
            if (queue.poll() != null) {
                dropped.incrementAndGet();
            }
        }
    }

    /** How many events were dropped (the oldest, beyond {@link #LIMIT} undrained) since the last call. */
    public long takeDropped() {
        return dropped.getAndSet(0);
    }

    /** Every event that came in since the last call. */
    public List<Event> drain() {
        List<Event> out = new ArrayList<>();
        Event e;
        while ((e = queue.poll()) != null) {
            out.add(e);
        }
        return out;
    }
}
