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
 *
 * <p>A capture is judged on what it holds. What it should show and does not — GPUs after a cut,
 * a value nvidia-smi does not print, a line out of place — is a {@link Gap}, which the GPU probes
 * report as "could not read", so that a partial capture is never a pass. A capture of nvidia-smi
 * failing as a whole ("couldn't communicate with the NVIDIA driver") is {@link #unavailable()}:
 * the same answer live NVML gives when it cannot be opened.
 */
public final class GpuCapture {
    /** Every kind of GPU data, for what a capture of nvidia-smi failing as a whole stands for. */
    static final Set<GpuData> ALL = Collections.unmodifiableSet(EnumSet.allOf(GpuData.class));

    /**
     * What the capture should show and does not: on GPU {@code index} ({@link CapturedGpu#index()};
     * null: the GPUs as a whole), data of {@code kinds}, in words with the line.
     */
    public record Gap(Integer index, String pciBusId, Set<GpuData> kinds, String text) {
        public Gap {
            kinds = kinds.isEmpty() ? Set.of() : Collections.unmodifiableSet(EnumSet.copyOf(kinds));
        }
    }

    private final String source;
    private final String driverVersion;
    private final List<CapturedGpu> gpus;
    private final Set<GpuData> provides;
    private final List<Gap> gaps;
    private final String unavailable;
    private final Integer announced;

    GpuCapture(String source, String driverVersion, List<CapturedGpu> gpus, Set<GpuData> provides) {
        this(source, driverVersion, gpus, provides, List.of(), null, null);
    }

    GpuCapture(String source, String driverVersion, List<CapturedGpu> gpus, Set<GpuData> provides, List<Gap> gaps, String unavailable,
               Integer announced) {
        this.source = source;
        this.driverVersion = driverVersion;
        List<CapturedGpu> sorted = new ArrayList<>(gpus);
        sorted.sort(Comparator.comparingInt(CapturedGpu::index));
        this.gpus = List.copyOf(sorted);
        this.provides = provides.isEmpty() ? EnumSet.noneOf(GpuData.class) : EnumSet.copyOf(provides);
        this.gaps = List.copyOf(gaps);
        this.unavailable = unavailable;
        this.announced = announced;
    }

    /** A capture nhc could not read at all: every kind of GPU data is a gap, said with {@code why}. */
    static GpuCapture unreadable(String source, String why) {
        return new GpuCapture(source, null, List.of(), EnumSet.noneOf(GpuData.class), List.of(new Gap(null, null, ALL, why)), null, null);
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

    /** What the capture should show and does not; empty for a whole capture. */
    public List<Gap> gaps() {
        return gaps;
    }

    /** Why nvidia-smi could not use NVML at all (driver not loaded…), or null when it could. */
    public String unavailable() {
        return unavailable;
    }

    /** How many GPUs nvidia-smi said are attached ("Attached GPUs"), or null when the capture does not say. */
    public Integer announced() {
        return announced;
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
        List<Gap> allGaps = new ArrayList<>(gaps);
        allGaps.addAll(other.gaps);
        return new GpuCapture(source + " + " + other.source, driverVersion != null ? driverVersion : other.driverVersion, merged, kinds,
                allGaps, unavailable != null ? unavailable : other.unavailable, announced != null ? announced : other.announced);
    }

    private static Map<Integer, CapturedGpu> byIndex(List<CapturedGpu> gpus) {
        Map<Integer, CapturedGpu> m = new LinkedHashMap<>();
        for (CapturedGpu g : gpus) {
            m.put(g.index, g);
        }
        return m;
    }
}
