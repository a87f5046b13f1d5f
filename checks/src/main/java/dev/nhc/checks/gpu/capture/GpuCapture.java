package dev.nhc.checks.gpu.capture;

import dev.nhc.checks.gpu.GpuData;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/** What one or more nvidia-smi captures say about a node's GPUs, and which kinds of data they hold. */
public final class GpuCapture {
    private final String source;
    private final String driverVersion;
    private final List<CapturedGpu> gpus;
    private final Set<GpuData> provides;

    GpuCapture(String source, String driverVersion, List<CapturedGpu> gpus, Set<GpuData> provides) {
        this.source = source;
        this.driverVersion = driverVersion;
        this.gpus = List.copyOf(gpus);
        this.provides = provides.isEmpty() ? EnumSet.noneOf(GpuData.class) : EnumSet.copyOf(provides);
    }

    /** The file name(s) the capture came from. */
    public String source() {
        return source;
    }

    public String driverVersion() {
        return driverVersion;
    }

    public List<CapturedGpu> gpus() {
        return gpus;
    }

    public Set<GpuData> provides() {
        return Collections.unmodifiableSet(provides);
    }

    /**
     * Both captures as one (e.g. {@code nvidia-smi -q} plus {@code nvidia-smi nvlink --status} of
     * the same node): GPUs matched by index, this capture's values first.
     *
     * @throws CaptureParseException when both name a GPU by UUID and the UUIDs differ: captures of different nodes
     */
    public GpuCapture merge(GpuCapture other) throws CaptureParseException {
        List<CapturedGpu> merged = new ArrayList<>();
        int n = Math.max(gpus.size(), other.gpus.size());
        for (int i = 0; i < n; i++) {
            CapturedGpu mine = i < gpus.size() ? gpus.get(i) : null;
            CapturedGpu theirs = i < other.gpus.size() ? other.gpus.get(i) : null;
            if (mine != null && theirs != null && mine.uuid != null && theirs.uuid != null && !mine.uuid.equals(theirs.uuid)) {
                throw CaptureParseException.mismatch("GPU " + i + " is " + mine.uuid + " in " + source
                        + " but " + theirs.uuid + " in " + other.source + ": the captures are of different nodes");
            }
            CapturedGpu g = new CapturedGpu(i);
            if (mine != null) {
                g.fillFrom(mine);
            }
            if (theirs != null) {
                g.fillFrom(theirs);
            }
            merged.add(g);
        }
        Set<GpuData> kinds = EnumSet.noneOf(GpuData.class);
        kinds.addAll(provides);
        kinds.addAll(other.provides);
        return new GpuCapture(source + " + " + other.source, driverVersion != null ? driverVersion : other.driverVersion, merged, kinds);
    }
}
