package dev.nhc.checks.gpu.xid;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The XIDs NVML reported to the daemon's event watcher, waiting for {@code gpu.xid} to judge them
 * as it judges kernel log lines (offered through ProbeContext#service; the one-shot run has none).
 * An XID arrives here within milliseconds, so a fatal one fails the check — and, with Slurm,
 * drains the node — within a second, even when its kernel log line is slow or missing.
 */
public final class NvmlXidEvents {
    /** How many undrained events are kept; beyond that the oldest go (gpu.xid runs within a second of each). */
    static final int LIMIT = 10_000;

    /** One event: the GPU's NVML index and PCI bus id (null when NVML could not say), the XID, when it came. */
    public record Event(int gpu, String pciBusId, long xid, Instant at) {
    }

    private final ConcurrentLinkedQueue<Event> queue = new ConcurrentLinkedQueue<>();

    public void add(Event e) {
        queue.add(e);
        while (queue.size() > LIMIT) {
            queue.poll();
        }
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
