package dev.nhc.checks.gpu.capture;

import dev.nhc.checks.gpu.GpuData;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * What one or more nvidia-smi captures say about a node's GPUs, and which kinds of data they hold.
 * It holds only the GPUs the captures show, by their own index: {@code nvidia-smi nvlink -s -i 7}
 * is GPU 7 alone, not eight GPUs of which seven say nothing.
 */
public final class GpuCapture {
    private final String source;
    private final String driverVersion;
    private final List<CapturedGpu> gpus;
    private final Set<GpuData> provides;

    GpuCapture(String source, String driverVersion, List<CapturedGpu> gpus, Set<GpuData> provides) {
        this.source = source;
        this.driverVersion = driverVersion;
        List<CapturedGpu> sorted = new ArrayList<>(gpus);
        sorted.sort(Comparator.comparingInt(CapturedGpu::index));
        this.gpus = List.copyOf(sorted);
        this.provides = provides.isEmpty() ? EnumSet.noneOf(GpuData.class) : EnumSet.copyOf(provides);
    }

    /** The file name(s) the capture came from. */
    public String source() {
        return source;
    }

    public String driverVersion() {
        return driverVersion;
    }

    /** The GPUs the captures show, by index. */
    public List<CapturedGpu> gpus() {
        return gpus;
    }

    public Set<GpuData> provides() {
        return Collections.unmodifiableSet(provides);
    }

    /**
     * Both captures as one (e.g. {@code nvidia-smi -q} plus {@code nvidia-smi nvlink --status} of
     * the same node): GPUs matched by index, this capture's values first; a GPU only one of them
     * shows is kept with what that one holds.
     *
     * @throws CaptureParseException when both name a GPU by UUID and the UUIDs differ: captures of different nodes
     */
    public GpuCapture merge(GpuCapture other) throws CaptureParseException {
        Map<Integer, CapturedGpu> mineByIndex = byIndex(gpus);
        Map<Integer, CapturedGpu> theirsByIndex = byIndex(other.gpus);
        Set<Integer> indexes = new TreeSet<>(mineByIndex.keySet());
        indexes.addAll(theirsByIndex.keySet());
        List<CapturedGpu> merged = new ArrayList<>();
        for (int i : indexes) {
            CapturedGpu mine = mineByIndex.get(i);
            CapturedGpu theirs = theirsByIndex.get(i);
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

    private static Map<Integer, CapturedGpu> byIndex(List<CapturedGpu> gpus) {
        Map<Integer, CapturedGpu> m = new LinkedHashMap<>();
        for (CapturedGpu g : gpus) {
            m.put(g.index, g);
        }
        return m;
    }
}
