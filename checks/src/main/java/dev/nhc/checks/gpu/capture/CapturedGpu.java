package dev.nhc.checks.gpu.capture;

import dev.nhc.checks.gpu.GpuCallException;
import dev.nhc.checks.gpu.GpuData;
import dev.nhc.checks.gpu.GpuDevice;
import dev.nhc.checks.gpu.GpuFabric;
import dev.nhc.checks.gpu.GpuVendor;
import dev.nhc.checks.gpu.nvml.NvmlClockEvents;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One NVIDIA GPU as an nvidia-smi capture shows it (a capture shows link state, not NVLink error
 * counters: absent, as on a GPU without them). Values the capture says are {@code N/A} or
 * {@code Not Supported}, or does not show at all, are null: the same "absent" as NVML's
 * NOT_SUPPORTED, so the probes judge a capture exactly as they judge live NVML.
 */
public final class CapturedGpu implements GpuDevice {
    /** NVML's index; negative for a GPU the capture names only by its PCI address (an error line of nvidia-smi alone). */
    final int index;
    /** Why the capture says this GPU cannot be reached (nvidia-smi could not get its handle), or null. */
    String lost;
    /** The kinds of data the capture shows for this GPU (a {@code -d} subset, or NVLink state only). */
    final Set<GpuData> holds = EnumSet.noneOf(GpuData.class);
    String pciBusId;
    String name;
    String uuid;
    Boolean persistenceMode;
    Boolean eccEnabled;
    /** By the fake-NVML scenario's keys: volatile_corrected, aggregate_dram_uncorrected, … */
    final Map<String, Long> ecc = new LinkedHashMap<>();
    RemappedRows remappedRows;
    Long retiredSbe;
    Long retiredDbe;
    Boolean retiredPending;
    Long pcieGen;
    Long pcieMaxGen;
    Long pcieWidth;
    Long pcieMaxWidth;
    Long pcieReplays;
    Long performanceState;
    Long gpuUtilization;
    /** Per link, whether it is up; null when the capture holds no NVLink status for this GPU. */
    List<Boolean> nvlinks;
    Long temperature;
    Long memoryTemperature;
    final Map<TemperatureThreshold, Long> thresholds = new EnumMap<>(TemperatureThreshold.class);
    Long clocksEventReasons;
    Long powerMilliwatts;
    Long powerLimitMilliwatts;
    GpuFabric fabric;

    CapturedGpu(int index) {
        this.index = index;
    }

    /** A GPU nvidia-smi could not get the handle of, as its error line names it (by its address; {@code index} negative when that is all). */
    static CapturedGpu lost(int index, NvidiaSmiErrors.Line error) {
        CapturedGpu g = new CapturedGpu(index);
        g.pciBusId = error.pciBusId();
        g.lost = error.text();
        return g;
    }

    /** Copies what {@code other} (another capture of the same GPU) holds and this one does not. */
    void fillFrom(CapturedGpu other) {
        holds.addAll(other.holds);
        lost = lost != null ? lost : other.lost;
        pciBusId = pciBusId != null ? pciBusId : other.pciBusId;
        name = name != null ? name : other.name;
        uuid = uuid != null ? uuid : other.uuid;
        persistenceMode = persistenceMode != null ? persistenceMode : other.persistenceMode;
        eccEnabled = eccEnabled != null ? eccEnabled : other.eccEnabled;
        other.ecc.forEach(ecc::putIfAbsent);
        remappedRows = remappedRows != null ? remappedRows : other.remappedRows;
        retiredSbe = retiredSbe != null ? retiredSbe : other.retiredSbe;
        retiredDbe = retiredDbe != null ? retiredDbe : other.retiredDbe;
        retiredPending = retiredPending != null ? retiredPending : other.retiredPending;
        pcieGen = pcieGen != null ? pcieGen : other.pcieGen;
        pcieMaxGen = pcieMaxGen != null ? pcieMaxGen : other.pcieMaxGen;
        pcieWidth = pcieWidth != null ? pcieWidth : other.pcieWidth;
        pcieMaxWidth = pcieMaxWidth != null ? pcieMaxWidth : other.pcieMaxWidth;
        pcieReplays = pcieReplays != null ? pcieReplays : other.pcieReplays;
        performanceState = performanceState != null ? performanceState : other.performanceState;
        gpuUtilization = gpuUtilization != null ? gpuUtilization : other.gpuUtilization;
        nvlinks = nvlinks != null ? nvlinks : other.nvlinks == null ? null : new ArrayList<>(other.nvlinks);
        temperature = temperature != null ? temperature : other.temperature;
        memoryTemperature = memoryTemperature != null ? memoryTemperature : other.memoryTemperature;
        other.thresholds.forEach(thresholds::putIfAbsent);
        clocksEventReasons = clocksEventReasons != null ? clocksEventReasons : other.clocksEventReasons;
        powerMilliwatts = powerMilliwatts != null ? powerMilliwatts : other.powerMilliwatts;
        powerLimitMilliwatts = powerLimitMilliwatts != null ? powerLimitMilliwatts : other.powerLimitMilliwatts;
        fabric = fabric != null ? fabric : other.fabric;
    }

    static String eccKey(EccCounter c, EccError t, EccBlock l) {
        return c.name().toLowerCase(java.util.Locale.ROOT) + "_" + (l == null ? "" : l.name().toLowerCase(java.util.Locale.ROOT) + "_")
                + t.name().toLowerCase(java.util.Locale.ROOT);
    }

    @Override
    public GpuVendor vendor() {
        return GpuVendor.NVIDIA;
    }

    @Override
    public int index() {
        return index;
    }

    @Override
    public boolean holds(GpuData kind) {
        return lost != null || holds.contains(kind);
    }

    /** "GPU 3 (0000:3b:00.0)", or by its address alone when the capture gives no index. */
    @Override
    public String label() {
        if (index >= 0) {
            return GpuDevice.super.label();
        }
        return pciBusId == null ? "a GPU the capture does not name" : "GPU at PCI " + pciBusId;
    }

    /** A GPU nvidia-smi could not open answers nothing: every reading fails as NVML's does for a lost GPU. */
    @Override
    public <T> T batch(Batch<T> work) throws GpuCallException {
        if (lost != null) {
            throw new GpuCallException(GpuCallException.Kind.LOST, "nvmlDeviceGetHandleByIndex_v2", lost);
        }
        return work.run();
    }

    @Override
    public String pciBusId() {
        return pciBusId;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String uuid() {
        return uuid;
    }

    @Override
    public Boolean persistenceMode() {
        return persistenceMode;
    }

    @Override
    public Boolean eccEnabled() {
        return eccEnabled;
    }

    @Override
    public Long eccErrors(EccCounter counter, EccError type, EccBlock block) {
        return ecc.get(eccKey(counter, type, block));
    }

    @Override
    public RemappedRows remappedRows() {
        return remappedRows;
    }

    @Override
    public Long retiredPages(RetirementCause cause) {
        return cause == RetirementCause.DOUBLE_BIT_ECC ? retiredDbe : retiredSbe;
    }

    @Override
    public Boolean retiredPagesPending() {
        return retiredPending;
    }

    @Override
    public Long pcieGeneration() {
        return pcieGen;
    }

    @Override
    public Long pcieMaxGeneration() {
        return pcieMaxGen;
    }

    @Override
    public Long pcieWidth() {
        return pcieWidth;
    }

    @Override
    public Long pcieMaxWidth() {
        return pcieMaxWidth;
    }

    @Override
    public Long pcieReplays() {
        return pcieReplays;
    }

    @Override
    public Long performanceState() {
        return performanceState;
    }

    @Override
    public Long gpuUtilization() {
        return gpuUtilization;
    }

    @Override
    public Boolean linkActive(int link) {
        return nvlinks == null || link >= nvlinks.size() ? null : nvlinks.get(link);
    }

    @Override
    public Long temperature() {
        return temperature;
    }

    @Override
    public Long memoryTemperature() {
        return memoryTemperature;
    }

    @Override
    public Long temperatureThreshold(TemperatureThreshold threshold) {
        return thresholds.get(threshold);
    }

    @Override
    public Throttle throttle() {
        return clocksEventReasons == null ? null : NvmlClockEvents.throttle(clocksEventReasons);
    }

    @Override
    public Long powerUsageMilliwatts() {
        return powerMilliwatts;
    }

    @Override
    public Long enforcedPowerLimitMilliwatts() {
        return powerLimitMilliwatts;
    }

    @Override
    public GpuFabric fabric() {
        return fabric;
    }
}
