package dev.nhc.checks.gpu.amd;

import com.sun.jna.Function;
import dev.nhc.checks.gpu.GpuCallException;
import dev.nhc.checks.gpu.GpuCallException.Kind;
import dev.nhc.checks.gpu.GpuVendor;
import dev.nhc.checks.gpu.calls.Deadline;
import dev.nhc.checks.gpu.calls.LibraryDevice;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.Map;

/**
 * One AMD GPU through AMD SMI, for one probe: each getter is one AMD SMI call under the probe's
 * deadline, run on the GPU's own thread inside a {@link #batch} (called from elsewhere, a getter
 * hands itself to that thread). Calls that answer several getters at once (the PCIe info, an ECC
 * block's three counts, the XGMI link status, the power info) are made once per probe and kept.
 *
 * <p>AMD's meaning where it differs from NVIDIA's: RAS counters are volatile (since the driver
 * loaded), so aggregate counts are absent; the UMC's counts are DRAM's; the temperature is the
 * hotspot (junction), its emergency and critical temperatures are the shutdown and slowdown
 * thresholds; the throttle reasons are AMD's violation status (PROCHOT, PPT, socket, VR and HBM
 * thermal). A GPU whose PCI device vanished from the bus since a probe saw it there is lost, however
 * the library answers for it (amdgpu's sysfs files of a removed device read as "not supported").
 */
final class AmdSmiDevice extends LibraryDevice {
    private final AmdSmiGpu gpu;
    private final Path pciDevices;
    private final Map<EccBlock, long[]> eccByBlock = new EnumMap<>(EccBlock.class);
    private long[] eccTotal;
    private AmdSmiPcie pcie;
    private byte[] links;
    private boolean pcieRead;
    private boolean linksRead;
    private boolean eccTotalRead;

    AmdSmiDevice(AmdSmiGpu gpu, Deadline deadline, Path pciDevices) {
        super(gpu.calls(), deadline);
        this.gpu = gpu;
        this.pciDevices = pciDevices;
    }

    @Override
    public GpuVendor vendor() {
        return GpuVendor.AMD;
    }

    @Override
    public <T> T batch(Batch<T> work) throws GpuCallException {
        if (!calls.onWorker()) {
            pciBusId();
            if (gpu.goneFromBus(pciDevices)) {
                throw new GpuCallException(Kind.LOST, "the PCI bus", calls.label() + " is lost: its PCI device is gone from "
                        + "/sys/bus/pci/devices (fallen off the bus); see dmesg for amdgpu errors");
            }
        }
        return calls.batch(deadline, work);
    }

    @Override
    protected boolean check(int rc, String name) throws GpuCallException {
        return gpu.check(rc, name, true);
    }

    @Override
    public String name() throws GpuCallException {
        if (!calls.onWorker()) {
            return batch(this::name);
        }
        byte[] b = new byte[AmdSmiStructs.ASIC_INFO_SIZE];
        String n = "amdsmi_get_gpu_asic_info";
        return present(n, AmdSmiNative.amdsmi_get_gpu_asic_info(begin(n), b))
                ? AmdSmiStructs.text(b, AmdSmiStructs.ASIC_MARKET_NAME, AmdSmiStructs.ASIC_MARKET_NAME_LEN) : null;
    }

    @Override
    public String uuid() throws GpuCallException {
        if (!calls.onWorker()) {
            return batch(this::uuid);
        }
        byte[] b = new byte[AmdSmiStructs.UUID_SIZE];
        int[] length = {b.length};
        String n = "amdsmi_get_gpu_device_uuid";
        return present(n, AmdSmiNative.amdsmi_get_gpu_device_uuid(begin(n), length, b)) ? AmdSmiStructs.text(b, 0, b.length) : null;
    }

    @Override
    public String firmwareVersion() throws GpuCallException {
        if (!calls.onWorker()) {
            return batch(this::firmwareVersion);
        }
        byte[] b = new byte[AmdSmiStructs.VBIOS_INFO_SIZE];
        String n = "amdsmi_get_gpu_vbios_info";
        return present(n, AmdSmiNative.amdsmi_get_gpu_vbios_info(begin(n), b))
                ? AmdSmiStructs.text(b, AmdSmiStructs.VBIOS_VERSION, AmdSmiStructs.VBIOS_VERSION_LEN) : null;
    }

    @Override
    public Boolean eccEnabled() throws GpuCallException {
        if (!calls.onWorker()) {
            return batch(this::eccEnabled);
        }
        long[] mask = new long[1];
        String n = "amdsmi_get_gpu_ecc_enabled";
        return present(n, AmdSmiNative.amdsmi_get_gpu_ecc_enabled(begin(n), mask)) ? (mask[0] & AmdSmiStructs.BLOCK_UMC) != 0 : null;
    }

    @Override
    public Long eccErrors(EccCounter counter, EccError type, EccBlock block) throws GpuCallException {
        Long bit = block == null ? null : AmdSmiStructs.blockBit(block);
        if (counter == EccCounter.AGGREGATE || (block != null && bit == null)) {
            return null;    // AMD's RAS counters start when the driver loads; SRAM is NVIDIA's
        }
        if (!calls.onWorker()) {
            return batch(() -> eccErrors(counter, type, block));
        }
        long[] counts;
        if (block == null) {
            if (!eccTotalRead) {
                eccTotalRead = true;
                long[] c = new long[AmdSmiStructs.ERROR_COUNT_WORDS];
                String n = "amdsmi_get_gpu_total_ecc_count";
                eccTotal = present(n, AmdSmiNative.amdsmi_get_gpu_total_ecc_count(begin(n), c)) ? c : null;
            }
            counts = eccTotal;
        } else {
            if (!eccByBlock.containsKey(block)) {
                long[] c = new long[AmdSmiStructs.ERROR_COUNT_WORDS];
                String n = "amdsmi_get_gpu_ecc_count";
                eccByBlock.put(block, present(n, AmdSmiNative.amdsmi_get_gpu_ecc_count(begin(n), bit, c)) ? c : null);
            }
            counts = eccByBlock.get(block);
        }
        return counts == null ? null : Math.max(0, counts[type.ordinal()]);
    }

    @Override
    public BadPages badPages() throws GpuCallException {
        if (!calls.onWorker()) {
            return batch(this::badPages);
        }
        int[] count = new int[1];
        String n = "amdsmi_get_gpu_bad_page_info";
        if (!present(n, AmdSmiNative.amdsmi_get_gpu_bad_page_info(begin(n), count, null))) {
            return null;
        }
        if (count[0] <= 0) {
            return new BadPages(0, 0, 0);
        }
        byte[] records = new byte[count[0] * AmdSmiStructs.PAGE_RECORD_SIZE];
        int[] filled = {count[0]};
        if (!present(n, AmdSmiNative.amdsmi_get_gpu_bad_page_info(begin(n), filled, records))) {
            return null;
        }
        return AmdSmiStructs.badPages(records, Math.min(filled[0], count[0]));
    }

    /** The PCIe info, read once per probe; null when the GPU has none. */
    private AmdSmiPcie pcie() throws GpuCallException {
        if (!pcieRead) {
            pcieRead = true;
            byte[] b = new byte[AmdSmiStructs.PCIE_INFO_SIZE];
            String n = "amdsmi_get_pcie_info";
            pcie = present(n, AmdSmiNative.amdsmi_get_pcie_info(begin(n), b)) ? AmdSmiPcie.decode(b) : null;
        }
        return pcie;
    }

    @Override
    public Long pcieGeneration() throws GpuCallException {
        if (!calls.onWorker()) {
            return batch(this::pcieGeneration);
        }
        AmdSmiPcie p = pcie();
        return p == null ? null : p.generation();
    }

    @Override
    public Long pcieMaxGeneration() throws GpuCallException {
        if (!calls.onWorker()) {
            return batch(this::pcieMaxGeneration);
        }
        AmdSmiPcie p = pcie();
        return p == null ? null : p.maxGeneration();
    }

    @Override
    public Long pcieWidth() throws GpuCallException {
        if (!calls.onWorker()) {
            return batch(this::pcieWidth);
        }
        AmdSmiPcie p = pcie();
        return p == null ? null : p.width();
    }

    @Override
    public Long pcieMaxWidth() throws GpuCallException {
        if (!calls.onWorker()) {
            return batch(this::pcieMaxWidth);
        }
        AmdSmiPcie p = pcie();
        return p == null ? null : p.maxWidth();
    }

    @Override
    public Long pcieReplays() throws GpuCallException {
        if (!calls.onWorker()) {
            return batch(this::pcieReplays);
        }
        AmdSmiPcie p = pcie();
        return p == null ? null : p.replays();
    }

    @Override
    public Long pcieRecoveries() throws GpuCallException {
        if (!calls.onWorker()) {
            return batch(this::pcieRecoveries);
        }
        AmdSmiPcie p = pcie();
        return p == null ? null : p.recoveries();
    }

    @Override
    public Long gpuUtilization() throws GpuCallException {
        if (!calls.onWorker()) {
            return batch(this::gpuUtilization);
        }
        byte[] b = new byte[AmdSmiStructs.ENGINE_USAGE_SIZE];
        String n = "amdsmi_get_gpu_activity";
        if (!present(n, AmdSmiNative.amdsmi_get_gpu_activity(begin(n), b))) {
            return null;
        }
        long gfx = Integer.toUnsignedLong(AmdSmiStructs.le(b).getInt(0));
        return gfx > 100 ? null : gfx;  // 0xFFFF or 0xFFFFFFFF: not available
    }

    /** The XGMI link status (ROCm 6.4 and later), read once per probe; null when the library or GPU has none. */
    private ByteBuffer links() throws GpuCallException {
        if (!linksRead) {
            linksRead = true;
            Function f = AmdSmiNative.optional("amdsmi_get_gpu_xgmi_link_status");
            if (f != null) {
                byte[] b = new byte[AmdSmiStructs.XGMI_LINK_STATUS_SIZE];
                String n = "amdsmi_get_gpu_xgmi_link_status";
                links = present(n, f.invokeInt(new Object[] {begin(n), b})) ? b : null;
            }
        }
        return links == null ? null : AmdSmiStructs.le(links);
    }

    @Override
    public Boolean linkActive(int link) throws GpuCallException {
        if (link >= AmdSmiStructs.XGMI_MAX_LINKS) {
            return null;
        }
        if (!calls.onWorker()) {
            return batch(() -> linkActive(link));
        }
        ByteBuffer b = links();
        if (b == null || link >= Integer.toUnsignedLong(b.getInt(0))) {
            return null;
        }
        int status = b.getInt(4 + 4 * link);
        return status == AmdSmiStructs.XGMI_LINK_UP ? Boolean.TRUE : status == AmdSmiStructs.XGMI_LINK_DOWN ? Boolean.FALSE : null;
    }

    @Override
    public String linkErrorStatus() throws GpuCallException {
        if (!calls.onWorker()) {
            return batch(this::linkErrorStatus);
        }
        int[] status = new int[1];
        String n = "amdsmi_gpu_xgmi_error_status";
        if (!present(n, AmdSmiNative.amdsmi_gpu_xgmi_error_status(begin(n), status))) {
            return null;
        }
        return switch (status[0]) {
            case 0 -> "no errors";
            case 1 -> "error";
            case 2 -> "multiple errors";
            default -> "status " + status[0];
        };
    }

    private Long temp(int sensor, int metric) throws GpuCallException {
        long[] v = new long[1];
        String n = "amdsmi_get_temp_metric";
        return present(n, AmdSmiNative.amdsmi_get_temp_metric(begin(n), sensor, metric, v)) && v[0] > 0 ? v[0] : null;
    }

    @Override
    public Long temperature() throws GpuCallException {
        if (!calls.onWorker()) {
            return batch(this::temperature);
        }
        return temp(AmdSmiStructs.TEMP_SENSOR_HOTSPOT, AmdSmiStructs.TEMP_CURRENT);
    }

    @Override
    public Long memoryTemperature() throws GpuCallException {
        if (!calls.onWorker()) {
            return batch(this::memoryTemperature);
        }
        return temp(AmdSmiStructs.TEMP_SENSOR_VRAM, AmdSmiStructs.TEMP_CURRENT);
    }

    @Override
    public Long temperatureThreshold(TemperatureThreshold threshold) throws GpuCallException {
        if (threshold == TemperatureThreshold.GPU_MAX) {
            return null;    // AMD has no "max operating" threshold apart from its critical one
        }
        if (!calls.onWorker()) {
            return batch(() -> temperatureThreshold(threshold));
        }
        return switch (threshold) {
            case SHUTDOWN -> temp(AmdSmiStructs.TEMP_SENSOR_HOTSPOT, AmdSmiStructs.TEMP_EMERGENCY);
            case SLOWDOWN -> temp(AmdSmiStructs.TEMP_SENSOR_HOTSPOT, AmdSmiStructs.TEMP_CRITICAL);
            case MEM_MAX -> temp(AmdSmiStructs.TEMP_SENSOR_VRAM, AmdSmiStructs.TEMP_CRITICAL);
            case GPU_MAX -> null;
        };
    }

    /** AMD's violation status in the model's kinds; null when the library (before ROCm 6.3) or the GPU has none. */
    @Override
    public Throttle throttle() throws GpuCallException {
        if (!calls.onWorker()) {
            return batch(this::throttle);
        }
        Function f = AmdSmiNative.optional("amdsmi_get_violation_status");
        if (f == null) {
            return null;
        }
        byte[] raw = new byte[AmdSmiStructs.VIOLATION_STATUS_SIZE];
        String n = "amdsmi_get_violation_status";
        return present(n, f.invokeInt(new Object[] {begin(n), raw})) ? AmdSmiViolations.throttle(raw) : null;
    }

    @Override
    public Long powerUsageMilliwatts() throws GpuCallException {
        if (!calls.onWorker()) {
            return batch(this::powerUsageMilliwatts);
        }
        byte[] b = new byte[AmdSmiStructs.POWER_INFO_SIZE];
        String n = "amdsmi_get_power_info";
        return present(n, AmdSmiNative.amdsmi_get_power_info(begin(n), b)) ? AmdSmiStructs.socketPowerMilliwatts(b) : null;
    }

    @Override
    public Long enforcedPowerLimitMilliwatts() throws GpuCallException {
        if (!calls.onWorker()) {
            return batch(this::enforcedPowerLimitMilliwatts);
        }
        byte[] b = new byte[AmdSmiStructs.POWER_CAP_INFO_SIZE];
        String n = "amdsmi_get_power_cap_info";
        if (!present(n, AmdSmiNative.amdsmi_get_power_cap_info(begin(n), 0, b))) {
            return null;
        }
        long microwatts = AmdSmiStructs.le(b).getLong(0);
        return microwatts <= 0 ? null : microwatts / 1000;
    }
}
