package dev.nhc.checks.gpu;

import java.util.List;
import java.util.Set;

/**
 * One GPU as the probes read it, whatever its maker and whether live (NVML, AMD SMI) or from a
 * capture ({@code nvidia-smi -q}, {@code amd-smi … --json}): the questions every datacenter GPU
 * answers, in one model. What only one vendor answers is a default method returning null, named
 * as that vendor's in its comment; the other vendor's GPUs simply do not have the value.
 *
 * <p>Every getter maps to one library call. {@code null} means "this GPU has no such value"
 * (NOT_SUPPORTED, or {@code N/A} in a capture): the field is left out, never failed on. A failure
 * that condemns the GPU (lost, hung) is a {@link GpuCallException} naming the call; any other
 * failure (no permission, corrupted infoROM…) makes that value null and is kept in
 * {@link #problems()}, so one unreadable counter does not cost the others.
 */
public interface GpuDevice {

    GpuVendor vendor();

    /** The library's index of the GPU (its position in the capture for a capture). */
    int index();

    /** The PCI bus id in the short form {@code 0000:3b:00.0}, or null when it could not be read. */
    String pciBusId();

    /** "GPU 3 (0000:3b:00.0)": how messages name this GPU. */
    default String label() {
        return "GPU " + index() + (pciBusId() == null ? "" : " (" + pciBusId() + ")");
    }

    /**
     * Whether this GPU's reading holds data of this kind. A live library holds everything; a
     * capture holds what it shows for this GPU, so a probe judges only the GPUs a capture has data for.
     */
    default boolean holds(GpuData kind) {
        return true;
    }

    /** What could not be read so far, one message per failed call ("GPU 3 (…): nvmlDeviceGetX returned NO_PERMISSION (…)"). */
    default List<String> problems() {
        return List.of();
    }

    // ---------------------------------------------------------------- identity

    String name() throws GpuCallException;

    String uuid() throws GpuCallException;

    /** The GPU's firmware (VBIOS) version; null when the source does not read it. */
    default String firmwareVersion() throws GpuCallException {
        return null;
    }

    /** NVIDIA: whether persistence mode is on (AMD GPUs have no such mode). */
    default Boolean persistenceMode() throws GpuCallException {
        return null;
    }

    // ---------------------------------------------------------------- memory errors

    Boolean eccEnabled() throws GpuCallException;

    /**
     * An ECC counter: the total when {@code block} is null, else in that block. NVIDIA counts
     * volatile (since the driver loaded) and aggregate (the GPU's lifetime); AMD's RAS counters
     * are volatile only, and AMD alone counts {@link EccError#DEFERRED} errors.
     */
    Long eccErrors(EccCounter counter, EccError type, EccBlock block) throws GpuCallException;

    // ---------------------------------------------------------------- memory repair

    /** NVIDIA Ampere and later: row remapping; null on GPUs without it. */
    default RemappedRows remappedRows() throws GpuCallException {
        return null;
    }

    /** NVIDIA before Ampere: the number of pages retired for this cause. */
    default Long retiredPages(RetirementCause cause) throws GpuCallException {
        return null;
    }

    /** NVIDIA before Ampere: a page retirement waits for a reboot. */
    default Boolean retiredPagesPending() throws GpuCallException {
        return null;
    }

    /** AMD: the bad-page table (pages retired for uncorrectable errors, by their status). */
    default BadPages badPages() throws GpuCallException {
        return null;
    }

    // ---------------------------------------------------------------- PCIe

    Long pcieGeneration() throws GpuCallException;

    Long pcieMaxGeneration() throws GpuCallException;

    Long pcieWidth() throws GpuCallException;

    Long pcieMaxWidth() throws GpuCallException;

    /** Packets the link retransmitted. */
    Long pcieReplays() throws GpuCallException;

    /** AMD: how often the link left L0 to recover (retrained). */
    default Long pcieRecoveries() throws GpuCallException {
        return null;
    }

    /** NVIDIA: the performance state, 0 for P0 (maximum performance) to 15 for P15 (minimum); null when unknown. */
    default Long performanceState() throws GpuCallException {
        return null;
    }

    /** Percent of the last sample period in which the GPU's compute engine was busy. */
    Long gpuUtilization() throws GpuCallException;

    // ---------------------------------------------------------------- GPU-to-GPU links (NVLink, XGMI)

    /** Whether link {@code link} is up; null when the GPU has no such link (links are numbered from 0). */
    Boolean linkActive(int link) throws GpuCallException;

    /** NVIDIA: a per-link error counter (AMD counts XGMI errors for the GPU as a whole: {@link #linkErrorStatus()}). */
    default Long linkErrors(int link, LinkCounter counter) throws GpuCallException {
        return null;
    }

    /** AMD: the XGMI error status ("no errors", "error", "multiple errors"). */
    default String linkErrorStatus() throws GpuCallException {
        return null;
    }

    // ---------------------------------------------------------------- thermal and power

    /** The GPU's main temperature in °C (NVIDIA: the GPU core; AMD: the hotspot, i.e. junction). */
    Long temperature() throws GpuCallException;

    /** HBM temperature in °C. */
    Long memoryTemperature() throws GpuCallException;

    /** The GPU's own threshold in °C. */
    Long temperatureThreshold(TemperatureThreshold threshold) throws GpuCallException;

    /** Why the clocks are held down now; null when the GPU cannot say. */
    Throttle throttle() throws GpuCallException;

    Long powerUsageMilliwatts() throws GpuCallException;

    Long enforcedPowerLimitMilliwatts() throws GpuCallException;

    /**
     * NVIDIA: the GPU's registration with the NVLink fabric of an NVSwitch system
     * ({@code nvmlDeviceGetGpuFabricInfoV}, or {@code nvmlDeviceGetGpuFabricInfo} on older drivers);
     * null when the GPU or the driver has no fabric information (PCIe GPUs, drivers before R525).
     */
    default GpuFabric fabric() throws GpuCallException {
        return null;
    }

    /**
     * Runs a whole reading of this GPU (many getters) where the GPU is cheapest to read: a live
     * library runs it on the GPU's own thread, so the calls inside need no thread hand-off each,
     * while a call that blocks is still caught and named. A capture just runs it.
     */
    default <T> T batch(Batch<T> work) throws GpuCallException {
        return work.run();
    }

    interface Batch<T> {
        T run() throws GpuCallException;
    }

    /** The most links any GPU may have (NVML_NVLINK_MAX_LINKS; AMD has at most 8 XGMI links). */
    int MAX_LINKS = 36;

    enum EccCounter { VOLATILE, AGGREGATE }

    /** Corrected and uncorrected are every vendor's; DEFERRED (uncorrectable, contained until used) is AMD's. */
    enum EccError { CORRECTED, UNCORRECTED, DEFERRED }

    /**
     * Where a memory error was counted. DRAM is every vendor's device memory (AMD: the UMC, the
     * memory controller in front of the HBM); SRAM is NVIDIA's on-chip memory; the others are AMD's
     * RAS blocks, by AMD's names.
     */
    enum EccBlock {
        DRAM("DRAM", "UMC"), SRAM("SRAM", null),
        GFX(null, "GFX"), SDMA(null, "SDMA"), MMHUB(null, "MMHUB"), ATHUB(null, "ATHUB"), PCIE_BIF(null, "PCIE_BIF"),
        HDP(null, "HDP"), XGMI_WAFL(null, "XGMI_WAFL"), DF(null, "DF"), SMN(null, "SMN"), SEM(null, "SEM"), MP0(null, "MP0"),
        MP1(null, "MP1"), FUSE(null, "FUSE"), MCA(null, "MCA"), VCN(null, "VCN"), JPEG(null, "JPEG"), IH(null, "IH"), MPIO(null, "MPIO");

        private final String nvidiaName;
        private final String amdName;

        EccBlock(String nvidiaName, String amdName) {
            this.nvidiaName = nvidiaName;
            this.amdName = amdName;
        }

        /** The block by the vendor's own name, or null when the vendor has no such block. */
        public String nameFor(GpuVendor vendor) {
            return vendor == GpuVendor.AMD ? amdName : nvidiaName;
        }

        /** The blocks this vendor counts errors in. */
        public static List<EccBlock> of(GpuVendor vendor) {
            return java.util.Arrays.stream(values()).filter(b -> b.nameFor(vendor) != null).toList();
        }
    }

    enum RetirementCause { MULTIPLE_SINGLE_BIT_ECC, DOUBLE_BIT_ECC }

    /** NVIDIA's per-link error counters, in nvmlNvLinkErrorCounter_t order. */
    enum LinkCounter { REPLAY, RECOVERY, CRC_FLIT, CRC_DATA, ECC_DATA }

    /** In NVML's nvmlTemperatureThresholds_t order; AMD: SHUTDOWN is the emergency and SLOWDOWN the critical temperature. */
    enum TemperatureThreshold { SHUTDOWN, SLOWDOWN, MEM_MAX, GPU_MAX }

    record RemappedRows(long correctable, long uncorrectable, boolean pending, boolean failure) {
    }

    /**
     * AMD's bad pages by status: {@code retired} are reserved (out of use), {@code pending} are
     * marked bad but still mapped until the GPU is reset or the driver reloaded, {@code unreservable}
     * could not be taken out of use.
     */
    record BadPages(long retired, long pending, long unreservable) {
    }

    /** What holds the clocks down, sorted into kinds every vendor has. */
    enum ThrottleKind {
        /** A hardware signal cuts the clocks by half or more (NVIDIA HW slowdown; AMD PROCHOT or a hot voltage regulator). */
        HW_SLOWDOWN,
        /** The GPU or its memory is too hot for its hardware limit (NVIDIA HW thermal slowdown; AMD HBM thermal). */
        HW_THERMAL,
        /** The system's power supply brakes the GPU (NVIDIA HW power brake). */
        HW_POWER_BRAKE,
        /** Firmware or driver slows the clocks to stay under the temperature limit (NVIDIA SW thermal; AMD socket thermal). */
        SW_THERMAL,
        /** At the power limit, as a busy GPU often is (NVIDIA SW power cap; AMD PPT). */
        SW_POWER_CAP
    }

    /**
     * Why the clocks are held down.
     *
     * @param active     the kinds active now
     * @param names      every active reason in the vendor's words ("idle, SW power cap"; "PPT"), "none" when there is none
     * @param hardware   the hardware reasons in the vendor's words ("HW slowdown (HW power brake)"; "PROCHOT"), "none" when there is none
     * @param vendorBits NVIDIA: the clock-event-reason bit mask; null for other vendors
     */
    record Throttle(Set<ThrottleKind> active, String names, String hardware, Long vendorBits) {
        public boolean has(ThrottleKind kind) {
            return active.contains(kind);
        }
    }
}
