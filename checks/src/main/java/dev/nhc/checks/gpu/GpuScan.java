package dev.nhc.checks.gpu;

import dev.nhc.model.Entity;
import dev.nhc.model.Observation;
import dev.nhc.probe.ProbeContext;
import dev.nhc.probe.ProbeResult;
import dev.nhc.probe.ProbeSpec;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * What every GPU probe does around its own reading (gpud's "every component has the same shape"):
 * find the GPUs of the vendors the probe supports ({@link GpuHost}), skip when none of them are
 * here or a replayed capture lacks the data, observe a vendor whose GPUs cannot be read at all on
 * the GPUs as a whole, read all GPUs in parallel (so two hung GPUs cost one call limit, not two),
 * and observe a GPU that is lost, hangs or cannot be read, while the other GPUs are still read.
 * It decides nothing: the rules {@link GpuSpecs} adds to every GPU probe do.
 */
public final class GpuScan {
    /** Looked up when something is logged, not at class load: runs that load this class and log nothing (host-only ones too) must not pay for initialising logging. */
    private static org.slf4j.Logger log() {
        return org.slf4j.LoggerFactory.getLogger(GpuScan.class);
    }

    /** The GPUs as a whole: their count and driver, and whether their library can be used at all. */
    public static final Entity GPUS = Entity.of(Entity.Kind.NODE, "gpus", "GPUs");

    // The fields GpuScan observes for every GPU probe (declared by GpuSpecs).
    static final String GPU = "gpu";
    static final String VENDOR = "vendor";
    static final String PCI_BUS_ID = "pci_bus_id";
    static final String LOST = "lost";
    static final String RESPONDING = "responding";
    static final String GPU_CALL = "gpu_call";
    static final String GPU_ERROR = "gpu_error";
    static final String UNREADABLE_VALUES = "unreadable_values";
    static final String LIBRARY_AVAILABLE = "gpu_library_available";
    // NVIDIA's names for GPU_CALL, GPU_ERROR and LIBRARY_AVAILABLE, which configs written before AMD support use.
    static final String NVML_CALL = "nvml_call";
    static final String NVML_ERROR = "nvml_error";
    static final String NVML_AVAILABLE = "nvml_available";

    private static final ExecutorService READERS = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "nhc-gpu-read");
        t.setDaemon(true);
        return t;
    });

    /** Reads one GPU into {@code out}; an exception that condemns the GPU ends its reading. */
    public interface Reader {
        void read(GpuDevice gpu, Fields out) throws GpuCallException;
    }

    private GpuScan() {
    }

    public static ProbeResult run(ProbeContext ctx, ProbeSpec spec, GpuData kind, Reader reader) throws InterruptedException {
        return run(ctx, GpuSources.forProbe(ctx, spec), kind, reader);
    }

    public static ProbeResult run(ProbeContext ctx, GpuHost host, GpuData kind, Reader reader) throws InterruptedException {
        if (host.nothingHere()) {
            return ProbeResult.skipped(host.whyNothing());
        }
        List<GpuDevice> devices = new ArrayList<>();
        // What a replayed capture should hold of this kind and does not: the probe cannot pass on it.
        List<Observation> gaps = new ArrayList<>();
        for (GpuHost.Found f : host.present()) {
            List<Observation> missing = f.source().gaps(kind);
            gaps.addAll(missing);
            if (!f.source().provides(kind) && missing.isEmpty()) {
                if (host.present().size() == 1 && host.failed().isEmpty()) {
                    return ProbeResult.skipped(f.source().description() + " holds no " + kind.description());
                }
                continue;
            }
            devices.addAll(devices(f.devices(), kind));
        }
        List<Future<Fields>> reads = new ArrayList<>();
        for (GpuDevice gpu : devices) {
            reads.add(READERS.submit(() -> read(gpu, reader)));
        }
        List<Observation> out = new ArrayList<>();
        if (!host.failed().isEmpty()) {
            out.add(unavailable(host.failed()).build());
        }
        long waitUntil = System.nanoTime() + ctx.remaining().toNanos();
        for (int i = 0; i < reads.size(); i++) {
            GpuDevice gpu = devices.get(i);
            try {
                // Every call inside has its own deadline inside the probe's; this wait is a backstop.
                out.add(reads.get(i).get(Math.max(0, waitUntil - System.nanoTime()), TimeUnit.NANOSECONDS).observation());
            } catch (ExecutionException e) {
                out.add(Observation.unreadable(entity(gpu), gpu.label() + ": could not be read: " + describe(e.getCause())));
            } catch (TimeoutException e) {
                out.add(Observation.unreadable(entity(gpu), gpu.label() + ": not read before the check's deadline"));
            }
        }
        out.addAll(gaps);
        return new ProbeResult(out, null);
    }

    /**
     * The GPUs that hold data of {@code kind}: every GPU of a live library, the GPUs a capture
     * shows that data for in a replay (never GPUs the capture does not show).
     */
    public static List<GpuDevice> devices(List<GpuDevice> all, GpuData kind) {
        List<GpuDevice> out = new ArrayList<>();
        for (GpuDevice gpu : all) {
            if (gpu.holds(kind)) {
                out.add(gpu);
            }
        }
        return out;
    }

    /**
     * The GPUs as a whole when a vendor's library cannot be used at all: why, as opening it said
     * (both vendors' reasons on a host with both). Opening that hung is also "not responding",
     * judged as a hung GPU is (the GPUs' driver is hung).
     */
    static Observation.Builder unavailable(List<GpuHost.Failed> failed) {
        List<String> why = new ArrayList<>();
        String blocked = null;
        boolean nvidia = false;
        for (GpuHost.Failed f : failed) {
            why.add(f.why().getMessage());
            blocked = blocked != null ? blocked : f.why().blockedCall();
            nvidia |= f.vendor() == GpuVendor.NVIDIA;
        }
        String error = String.join("; ", why);
        Observation.Builder b = Observation.of(GPUS).put(LIBRARY_AVAILABLE, false).put(GPU_ERROR, error);
        if (blocked != null) {
            b.put(RESPONDING, false).put(GPU_CALL, blocked);
        }
        if (nvidia) {
            b.put(NVML_AVAILABLE, false).put(NVML_ERROR, error).put(NVML_CALL, blocked);
        }
        return b;
    }

    /**
     * What went wrong in words for the report: the message, never a Java class name. An error
     * without one is nhc's own; its stack trace goes to the debug log.
     */
    public static String describe(Throwable cause) {
        log().debug("reading a GPU failed", cause);
        String m = cause == null ? null : cause.getMessage();
        return m == null || m.isBlank() ? "an unexpected error inside nhc" : m.strip().replace('\n', ' ');
    }

    public static Entity entity(GpuDevice gpu) {
        return entity(gpu.index(), gpu.pciBusId());
    }

    /**
     * GPU {@code index}; a negative index is a GPU a capture names only by its PCI address (or not
     * at all: a part of one GPU's {@code nvidia-smi -q} block pasted without its first line).
     */
    public static Entity entity(int index, String pciBusId) {
        if (index >= 0) {
            return Entity.gpu(index, pciBusId);
        }
        return pciBusId == null ? Entity.of(Entity.Kind.GPU, "unnamed", "a GPU the capture does not name") : Entity.gpuAtPci(pciBusId);
    }

    private static Fields read(GpuDevice gpu, Reader reader) {
        Fields out = new Fields(gpu);
        try {
            gpu.batch(() -> {
                reader.read(gpu, out);
                return null;
            });
        } catch (GpuCallException e) {
            out.failed(e);
        }
        return out;
    }

    /** A value reading for one GPU: the observation being built, and what went wrong on the way. */
    public static final class Fields {
        private final GpuDevice gpu;
        private final Observation.Builder observation;
        private GpuCallException failure;

        Fields(GpuDevice gpu) {
            this.gpu = gpu;
            this.observation = Observation.of(entity(gpu));
            observation.put(GPU, gpu.label());
            observation.put(VENDOR, gpu.vendor().displayName());
            observation.put(PCI_BUS_ID, gpu.pciBusId());
        }

        public GpuDevice gpu() {
            return gpu;
        }

        public Fields put(String field, Object value) {
            observation.put(field, value);
            return this;
        }

        void failed(GpuCallException e) {
            failure = e;
        }

        /** The error under its neutral name, and under NVML's for NVIDIA's GPUs. */
        private Observation.Builder error(String message) {
            observation.put(GPU_ERROR, message);
            if (gpu.vendor() == GpuVendor.NVIDIA) {
                observation.put(NVML_ERROR, message);
            }
            return observation;
        }

        /**
         * What was read. A lost or hung GPU keeps the values read before, with the fault as
         * fields (the rules fail it); values NVML refused are counted and said (the rules make
         * the GPU unknown unless something worse is found); a GPU that could not even be opened
         * is unreadable.
         */
        Observation observation() {
            // The same refusal for every counter of a kind (four ECC totals) is said once.
            List<String> problems = new ArrayList<>(new LinkedHashSet<>(gpu.problems()));
            if (failure != null && !failure.condemnsGpu()) {
                if (problems.isEmpty()) {
                    return Observation.unreadable(entity(gpu), failure.getMessage());
                }
                problems.add(failure.getMessage());
            }
            if (failure != null && failure.condemnsGpu()) {
                if (failure.kind() == GpuCallException.Kind.LOST) {
                    observation.put(LOST, true);
                } else {
                    observation.put(RESPONDING, false);
                }
                error(failure.getMessage()).put(GPU_CALL, failure.call());
                if (gpu.vendor() == GpuVendor.NVIDIA) {
                    observation.put(NVML_CALL, failure.call());
                }
            } else if (!problems.isEmpty()) {
                error(String.join("; ", problems));
            }
            if (!problems.isEmpty()) {
                observation.put(UNREADABLE_VALUES, (long) problems.size());
            }
            return observation.build();
        }
    }
}
