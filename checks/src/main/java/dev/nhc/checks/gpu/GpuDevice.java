package dev.nhc.checks.gpu;

/**
 * One GPU as the probes read it, whether from live NVML or from a captured {@code nvidia-smi -q}.
 * Every getter maps to one NVML call. {@code null} means "this GPU has no such value" (NVML's
 * NOT_SUPPORTED, or {@code N/A} in a capture): the field is left out, never failed on. A failure
 * that condemns the GPU (lost, hung) is a {@link GpuCallException} naming the call; any other
 * failure (no permission, corrupted infoROM…) makes that value null and is kept in
 * {@link #problems()}, so one unreadable counter does not cost the others.
 */
public interface GpuDevice {

    /** NVML's index of the GPU (its position in {@code nvidia-smi -q} for a capture). */
    int index();

    /** The PCI bus id in the short form {@code 0000:3b:00.0}, or null when it could not be read. */
    String pciBusId();

    /** "GPU 3 (0000:3b:00.0)": how messages name this GPU. */
    default String label() {
        return "GPU " + index() + (pciBusId() == null ? "" : " (" + pciBusId() + ")");
    }

    /**
     * Whether this GPU's reading holds data of this kind. Live NVML holds everything; a capture
     * holds what it shows for this GPU, so a probe judges only the GPUs a capture has data for.
     */
    default boolean holds(GpuData kind) {
        return true;
    }

    /** What could not be read so far, one message per failed call ("GPU 3 (…): nvmlDeviceGetX returned NO_PERMISSION (…)"). */
    default java.util.List<String> problems() {
        return java.util.List.of();
    }

    String name() throws GpuCallException;

    String uuid() throws GpuCallException;

    Boolean persistenceMode() throws GpuCallException;

    Boolean eccEnabled() throws GpuCallException;

    /** An ECC counter: the total when {@code location} is null, else at that location. */
    Long eccErrors(EccCounter counter, EccError type, MemoryLocation location) throws GpuCallException;

    /** Ampere and later; null on GPUs without row remapping. */
    RemappedRows remappedRows() throws GpuCallException;

    /** Pre-Ampere page retirement: the number of pages retired for this cause. */
    Long retiredPages(RetirementCause cause) throws GpuCallException;

    Boolean retiredPagesPending() throws GpuCallException;

    Long pcieGeneration() throws GpuCallException;

    Long pcieMaxGeneration() throws GpuCallException;

    Long pcieWidth() throws GpuCallException;

    Long pcieMaxWidth() throws GpuCallException;

    Long pcieReplays() throws GpuCallException;

    /** The performance state: 0 for P0 (maximum performance) to 15 for P15 (minimum); null when unknown. */
    Long performanceState() throws GpuCallException;

    /** Percent of the last sample period in which a kernel ran on the GPU. */
    Long gpuUtilization() throws GpuCallException;

    /** Whether NVLink {@code link} is up; null when the GPU has no such link (links are numbered from 0). */
    Boolean nvlinkActive(int link) throws GpuCallException;

    Long nvlinkErrors(int link, NvLinkCounter counter) throws GpuCallException;

    /** GPU core temperature in °C. */
    Long temperature() throws GpuCallException;

    /** HBM temperature in °C. */
    Long memoryTemperature() throws GpuCallException;

    /** The GPU's own threshold in °C. */
    Long temperatureThreshold(TemperatureThreshold threshold) throws GpuCallException;

    /** The clock-event-reasons bit mask (NVML's nvmlClocksEventReason*). */
    Long clocksEventReasons() throws GpuCallException;

    Long powerUsageMilliwatts() throws GpuCallException;

    Long enforcedPowerLimitMilliwatts() throws GpuCallException;

    /**
     * The GPU's registration with the NVLink fabric of an NVSwitch system
     * ({@code nvmlDeviceGetGpuFabricInfoV}, or {@code nvmlDeviceGetGpuFabricInfo} on older drivers);
     * null when the GPU or the driver has no fabric information (PCIe GPUs, drivers before R525).
     */
    default GpuFabric fabric() throws GpuCallException {
        return null;
    }

    /**
     * Runs a whole reading of this GPU (many getters) where the GPU is cheapest to read: live NVML
     * runs it on the GPU's own thread, so the calls inside need no thread hand-off each, while a
     * call that blocks is still caught and named. A capture just runs it.
     */
    default <T> T batch(Batch<T> work) throws GpuCallException {
        return work.run();
    }

    interface Batch<T> {
        T run() throws GpuCallException;
    }

    /** The most links any GPU may have (NVML_NVLINK_MAX_LINKS). */
    int MAX_NVLINKS = 36;

    enum EccCounter { VOLATILE, AGGREGATE }

    enum EccError { CORRECTED, UNCORRECTED }

    /** The locations nhc reads; the number is NVML's nvmlMemoryLocation_t. */
    enum MemoryLocation {
        DRAM(2), SRAM(7);

        public final int nvml;

        MemoryLocation(int nvml) {
            this.nvml = nvml;
        }
    }

    enum RetirementCause { MULTIPLE_SINGLE_BIT_ECC, DOUBLE_BIT_ECC }

    enum NvLinkCounter { REPLAY, RECOVERY, CRC_FLIT, CRC_DATA, ECC_DATA }

    /** In NVML's nvmlTemperatureThresholds_t order. */
    enum TemperatureThreshold { SHUTDOWN, SLOWDOWN, MEM_MAX, GPU_MAX }

    record RemappedRows(long correctable, long uncorrectable, boolean pending, boolean failure) {
    }
}
