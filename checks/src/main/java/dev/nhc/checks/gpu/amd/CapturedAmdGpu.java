package dev.nhc.checks.gpu.amd;

import dev.nhc.checks.gpu.GpuData;
import dev.nhc.checks.gpu.GpuDevice;
import dev.nhc.checks.gpu.GpuVendor;

import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * One AMD GPU as {@code amd-smi} or {@code rocm-smi} captures show it. A value the capture shows
 * as {@code N/A}, or does not show, is null: the same "absent" as AMD SMI's NOT_SUPPORTED, so the
 * probes judge a capture as they judge the live library. AMD's RAS counters are volatile (since
 * the driver loaded): aggregate counts are absent, as they are live.
 */
final class CapturedAmdGpu implements GpuDevice {
    final int index;
    final Set<GpuData> holds = EnumSet.noneOf(GpuData.class);
    String pciBusId;
    String name;
    String uuid;
    String firmwareVersion;
    Boolean eccEnabled;
    /** The totals, by error type. */
    final Map<EccError, Long> eccTotal = new EnumMap<>(EccError.class);
    /** By block, by error type. */
    final Map<EccBlock, Map<EccError, Long>> eccByBlock = new EnumMap<>(EccBlock.class);
    BadPages badPages;
    Long pcieGen;
    Long pcieMaxGen;
    Long pcieWidth;
    Long pcieMaxWidth;
    Long pcieReplays;
    Long pcieRecoveries;
    Long gpuUtilization;
    String linkErrorStatus;
    Long temperature;
    Long memoryTemperature;
    final Map<TemperatureThreshold, Long> thresholds = new EnumMap<>(TemperatureThreshold.class);
    Throttle throttle;
    Long powerMilliwatts;
    Long powerLimitMilliwatts;

    CapturedAmdGpu(int index) {
        this.index = index;
    }

    /** Copies what {@code other} (another capture of the same GPU) holds and this one does not. */
    void fillFrom(CapturedAmdGpu other) {
        holds.addAll(other.holds);
        pciBusId = pciBusId != null ? pciBusId : other.pciBusId;
        name = name != null ? name : other.name;
        uuid = uuid != null ? uuid : other.uuid;
        firmwareVersion = firmwareVersion != null ? firmwareVersion : other.firmwareVersion;
        eccEnabled = eccEnabled != null ? eccEnabled : other.eccEnabled;
        other.eccTotal.forEach(eccTotal::putIfAbsent);
        other.eccByBlock.forEach((b, counts) -> eccByBlock.computeIfAbsent(b, k -> new EnumMap<>(EccError.class)).putAll(counts));
        badPages = badPages != null ? badPages : other.badPages;
        pcieGen = pcieGen != null ? pcieGen : other.pcieGen;
        pcieMaxGen = pcieMaxGen != null ? pcieMaxGen : other.pcieMaxGen;
        pcieWidth = pcieWidth != null ? pcieWidth : other.pcieWidth;
        pcieMaxWidth = pcieMaxWidth != null ? pcieMaxWidth : other.pcieMaxWidth;
        pcieReplays = pcieReplays != null ? pcieReplays : other.pcieReplays;
        pcieRecoveries = pcieRecoveries != null ? pcieRecoveries : other.pcieRecoveries;
        gpuUtilization = gpuUtilization != null ? gpuUtilization : other.gpuUtilization;
        linkErrorStatus = linkErrorStatus != null ? linkErrorStatus : other.linkErrorStatus;
        temperature = temperature != null ? temperature : other.temperature;
        memoryTemperature = memoryTemperature != null ? memoryTemperature : other.memoryTemperature;
        other.thresholds.forEach(thresholds::putIfAbsent);
        throttle = throttle != null ? throttle : other.throttle;
        powerMilliwatts = powerMilliwatts != null ? powerMilliwatts : other.powerMilliwatts;
        powerLimitMilliwatts = powerLimitMilliwatts != null ? powerLimitMilliwatts : other.powerLimitMilliwatts;
    }

    @Override
    public GpuVendor vendor() {
        return GpuVendor.AMD;
    }

    @Override
    public int index() {
        return index;
    }

    @Override
    public boolean holds(GpuData kind) {
        return holds.contains(kind);
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
    public String firmwareVersion() {
        return firmwareVersion;
    }

    @Override
    public Boolean eccEnabled() {
        return eccEnabled;
    }

    @Override
    public Long eccErrors(EccCounter counter, EccError type, EccBlock block) {
        if (counter == EccCounter.AGGREGATE) {
            return null;
        }
        if (block == null) {
            return eccTotal.get(type);
        }
        Map<EccError, Long> counts = eccByBlock.get(block);
        return counts == null ? null : counts.get(type);
    }

    @Override
    public BadPages badPages() {
        return badPages;
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
    public Long pcieRecoveries() {
        return pcieRecoveries;
    }

    @Override
    public Long gpuUtilization() {
        return gpuUtilization;
    }

    /** amd-smi's captures show no per-link XGMI state, only the GPU's XGMI error status. */
    @Override
    public Boolean linkActive(int link) {
        return null;
    }

    @Override
    public String linkErrorStatus() {
        return linkErrorStatus;
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
        return throttle;
    }

    @Override
    public Long powerUsageMilliwatts() {
        return powerMilliwatts;
    }

    @Override
    public Long enforcedPowerLimitMilliwatts() {
        return powerLimitMilliwatts;
    }
}
