package dev.nhc.checks.gpu;

import dev.nhc.model.Finding;
import dev.nhc.model.Observation;
import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;
import dev.nhc.model.SlurmState;
import dev.nhc.probe.ProbeContext;
import dev.nhc.probe.ProbeResult;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * What every GPU probe does around its own reading (gpud's "every component has the same shape"):
 * pick the source, skip when a replayed capture lacks the data, turn "no NVML at all" into one
 * node-level finding, read all GPUs in parallel (so two hung GPUs cost one call limit, not two),
 * and turn a lost or hung GPU into a FAIL for that GPU while the other GPUs are still judged.
 */
public final class GpuScan {
    /** The node-level entity for findings about the GPUs as a whole (driver missing, count wrong). */
    public static final String NODE_ENTITY = "GPUs";

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

    /**
     * @param expectsGpus whether this host must have GPUs (a {@code gpu.inventory} with a
     *                    {@code count}): then "no NVML" is FAIL rather than UNKNOWN
     */
    public static ProbeResult run(ProbeContext ctx, GpuData kind, boolean expectsGpus, Reader reader) throws InterruptedException {
        GpuSource source = GpuSources.forProbe(ctx);
        return run(ctx, source, kind, expectsGpus, reader);
    }

    public static ProbeResult run(ProbeContext ctx, GpuSource source, GpuData kind, boolean expectsGpus, Reader reader)
            throws InterruptedException {
        if (!source.provides(kind)) {
            return ProbeResult.skipped(source.description() + " holds no " + kind.description());
        }
        List<GpuDevice> devices;
        try {
            devices = source.devices();
        } catch (GpuSourceException e) {
            Finding f = new Finding(null, NODE_ENTITY, expectsGpus ? Severity.FAIL : Severity.UNKNOWN, e.getMessage(),
                    expectsGpus ? Remedy.REBOOT : Remedy.NONE, null, Map.of());
            return new ProbeResult(List.of(), List.of(f), null);
        }
        List<Future<Fields>> reads = new ArrayList<>();
        for (GpuDevice gpu : devices) {
            reads.add(READERS.submit(() -> read(gpu, reader)));
        }
        ProbeResult.Builder result = ProbeResult.builder();
        long waitUntil = System.nanoTime() + ctx.remaining().toNanos();
        for (int i = 0; i < reads.size(); i++) {
            GpuDevice gpu = devices.get(i);
            Fields fields;
            try {
                // Every call inside has its own deadline inside the probe's; this wait is a backstop.
                fields = reads.get(i).get(Math.max(0, waitUntil - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (ExecutionException e) {
                result.finding(new Finding(null, entity(gpu), Severity.UNKNOWN,
                        gpu.label() + ": could not be read: " + e.getCause(), Remedy.NONE, null, Map.of()));
                continue;
            } catch (TimeoutException e) {
                result.finding(new Finding(null, entity(gpu), Severity.UNKNOWN,
                        gpu.label() + ": not read before the check's deadline", Remedy.NONE, null, Map.of()));
                continue;
            }
            result.observe(fields.observation.build());
            fields.findings.forEach(result::finding);
        }
        return result.build();
    }

    public static String entity(GpuDevice gpu) {
        return "GPU " + gpu.index();
    }

    private static Fields read(GpuDevice gpu, Reader reader) {
        Fields out = new Fields(gpu);
        try {
            gpu.batch(() -> {
                reader.read(gpu, out);
                return null;
            });
        } catch (GpuCallException e) {
            out.condemn(e);
        }
        out.finish();
        return out;
    }

    /** A value reading for one GPU: the observation being built, and what went wrong on the way. */
    public static final class Fields {
        private final GpuDevice gpu;
        private final Observation.Builder observation;
        private final Set<String> unreadable = new LinkedHashSet<>();
        private final List<Finding> findings = new ArrayList<>();

        Fields(GpuDevice gpu) {
            this.gpu = gpu;
            this.observation = Observation.of(entity(gpu));
            observation.put("gpu", gpu.label());
            observation.put("pci_bus_id", gpu.pciBusId());
        }

        public GpuDevice gpu() {
            return gpu;
        }

        public Fields put(String field, Object value) {
            observation.put(field, value);
            return this;
        }

        /** A finding the probe decides by itself for this GPU (a count mismatch, a link that should be up). */
        public Fields finding(Severity severity, String message, Remedy remedy, SlurmState slurmState) {
            findings.add(new Finding(null, entity(gpu), severity, message, remedy, slurmState,
                    gpu.pciBusId() == null ? Map.of() : Map.of("pci_bus_id", gpu.pciBusId())));
            return this;
        }

        void condemn(GpuCallException e) {
            Map<String, Object> observed = new LinkedHashMap<>();
            if (gpu.pciBusId() != null) {
                observed.put("pci_bus_id", gpu.pciBusId());
            }
            observed.put("nvml_call", e.call());
            if (e.kind() == GpuCallException.Kind.LOST) {
                // GPU_IS_LOST / RESET_REQUIRED: fallen off the bus; the node needs service, not just a drain.
                findings.add(new Finding(null, entity(gpu), Severity.FAIL, e.getMessage(), Remedy.REBOOT, SlurmState.FAIL, observed));
            } else {
                findings.add(new Finding(null, entity(gpu), Severity.FAIL, e.getMessage(), Remedy.REBOOT, null, observed));
            }
        }

        void finish() {
            unreadable.addAll(gpu.problems());
            if (!unreadable.isEmpty()) {
                findings.add(new Finding(null, entity(gpu), Severity.UNKNOWN, String.join("; ", unreadable), Remedy.NONE, null, Map.of()));
            }
        }
    }

}
