package dev.nhc.checks.gpu.amd;

import dev.nhc.checks.gpu.GpuData;
import dev.nhc.checks.gpu.GpuDevice;
import dev.nhc.checks.gpu.GpuSource;
import dev.nhc.checks.gpu.GpuVendor;
import dev.nhc.checks.gpu.capture.CaptureParseException;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * What one or more {@code amd-smi} / {@code rocm-smi} captures of one node say about its AMD GPUs,
 * as the GPU probes' source for {@code nhc replay}. It holds only the GPUs the captures show, by
 * their own index, and the kinds of data they show: {@code amd-smi bad-pages} alone feeds
 * {@code gpu.memory} and nothing else.
 */
public final class AmdSmiCapture implements GpuSource {
    private final String source;
    private final String driverVersion;
    private final List<CapturedAmdGpu> gpus;

    AmdSmiCapture(String source, String driverVersion, List<CapturedAmdGpu> gpus) {
        this.source = source;
        this.driverVersion = driverVersion;
        List<CapturedAmdGpu> sorted = new ArrayList<>(gpus);
        sorted.sort(Comparator.comparingInt(CapturedAmdGpu::index));
        this.gpus = List.copyOf(sorted);
    }

    /** The file name(s) the capture came from. */
    public String source() {
        return source;
    }

    @Override
    public GpuVendor vendor() {
        return GpuVendor.AMD;
    }

    @Override
    public String description() {
        return "the capture " + source;
    }

    @Override
    public boolean provides(GpuData kind) {
        return provided().contains(kind);
    }

    /** The kinds of data any of the GPUs shows. */
    public Set<GpuData> provided() {
        Set<GpuData> kinds = EnumSet.noneOf(GpuData.class);
        gpus.forEach(g -> kinds.addAll(g.holds));
        return kinds;
    }

    @Override
    public String driverVersion() {
        return driverVersion;
    }

    @Override
    public List<GpuDevice> devices() {
        return List.copyOf(gpus);
    }

    /** The GPUs' PCI bus ids by index, as far as the captures show them. */
    public Map<Integer, String> pciBusIds() {
        Map<Integer, String> out = new TreeMap<>();
        gpus.stream().filter(g -> g.pciBusId != null).forEach(g -> out.put(g.index, g.pciBusId));
        return out;
    }

    /**
     * Both captures as one ({@code amd-smi static --json} plus {@code amd-smi metric --json} plus
     * {@code amd-smi bad-pages} of the same node): GPUs matched by index, this capture's values first.
     *
     * @throws CaptureParseException when both show a GPU's PCI address and they differ: captures of different nodes
     */
    public AmdSmiCapture merge(AmdSmiCapture other) throws CaptureParseException {
        Map<Integer, CapturedAmdGpu> merged = new TreeMap<>();
        for (CapturedAmdGpu g : gpus) {
            merged.computeIfAbsent(g.index, CapturedAmdGpu::new).fillFrom(g);
        }
        for (CapturedAmdGpu theirs : other.gpus) {
            CapturedAmdGpu mine = merged.get(theirs.index);
            if (mine != null && mine.pciBusId != null && theirs.pciBusId != null && !mine.pciBusId.equals(theirs.pciBusId)) {
                throw CaptureParseException.mismatch("GPU " + theirs.index + " is " + mine.pciBusId + " in " + source + " but "
                        + theirs.pciBusId + " in " + other.source + ": the captures are of different nodes");
            }
            merged.computeIfAbsent(theirs.index, CapturedAmdGpu::new).fillFrom(theirs);
        }
        return new AmdSmiCapture(source + " + " + other.source, driverVersion != null ? driverVersion : other.driverVersion,
                new ArrayList<>(merged.values()));
    }
}
