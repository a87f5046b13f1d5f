package dev.nhc.checks.gpu.amd;

import com.sun.jna.Native;
import dev.nhc.checks.gpu.GpuDevice;
import dev.nhc.checks.gpu.GpuDevice.EccBlock;
import dev.nhc.checks.gpu.PciBusId;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The layouts of the AMD SMI structs nhc reads (x86-64, natural alignment, native byte order),
 * as {@code amdsmi.h} declares them, and the enum values nhc passes. Only what nhc reads is named;
 * every struct is passed whole, reserved tails included, so the library never writes past it.
 */
final class AmdSmiStructs {
    /** amdsmi_asic_info_t: char market_name[256] @0 … uint32_t reserved[15]; 456 bytes. */
    static final int ASIC_INFO_SIZE = 456;
    static final int ASIC_MARKET_NAME = 0;
    static final int ASIC_MARKET_NAME_LEN = 256;

    /** amdsmi_vbios_info_t: char name[64] @0, build_date[32] @64, part_number[64] @96, version[32] @160, reserved; 256 bytes. */
    static final int VBIOS_INFO_SIZE = 256;
    static final int VBIOS_VERSION = 160;
    static final int VBIOS_VERSION_LEN = 32;

    /** amdsmi_driver_info_t: char driver_version[64] @0, driver_date[64], driver_name[64]; 192 bytes. */
    static final int DRIVER_INFO_SIZE = 192;
    static final int DRIVER_VERSION_LEN = 64;

    /** The UUID buffer amd-smi passes (AMDSMI_GPU_UUID_SIZE). */
    static final int UUID_SIZE = 38;

    /** amdsmi_error_count_t: uint64_t correctable, uncorrectable, deferred, reserved[5]. */
    static final int ERROR_COUNT_WORDS = 8;

    /** amdsmi_retired_page_record_t: uint64_t page_address @0, page_size @8; amdsmi_memory_page_status_t status @16; 24 bytes. */
    static final int PAGE_RECORD_SIZE = 24;
    static final int PAGE_RECORD_STATUS = 16;
    static final int PAGE_RESERVED = 0;
    static final int PAGE_PENDING = 1;
    static final int PAGE_UNRESERVABLE = 2;

    /**
     * amdsmi_pcie_info_t: pcie_static {uint16_t max_pcie_width @0; uint32_t max_pcie_speed @4 (MT/s);
     * uint32_t pcie_interface_version @8; slot_type @12; reserved} @0 (96 bytes); pcie_metric
     * {uint16_t pcie_width @96; uint32_t pcie_speed @100 (MT/s); uint32_t pcie_bandwidth @104;
     * uint64_t pcie_replay_count @112, pcie_l0_to_recovery_count @120, …} @96; 512 bytes.
     */
    static final int PCIE_INFO_SIZE = 512;
    static final int PCIE_MAX_WIDTH = 0;
    static final int PCIE_MAX_SPEED = 4;
    static final int PCIE_INTERFACE_VERSION = 8;
    static final int PCIE_WIDTH = 96;
    static final int PCIE_SPEED = 100;
    static final int PCIE_REPLAY_COUNT = 112;
    static final int PCIE_L0_TO_RECOVERY_COUNT = 120;

    /** amdsmi_engine_usage_t: uint32_t gfx_activity @0, umc_activity, mm_activity, reserved[13]; 64 bytes. */
    static final int ENGINE_USAGE_SIZE = 64;

    /**
     * amdsmi_power_info_t: uint32_t current_socket_power @0, average_socket_power @4 (W), gfx_voltage,
     * soc_voltage, mem_voltage, power_limit, reserved[11]; 68 bytes. 0xFFFF means not available.
     */
    static final int POWER_INFO_SIZE = 68;
    static final int POWER_CURRENT_SOCKET = 0;
    static final int POWER_AVERAGE_SOCKET = 4;
    static final long POWER_NOT_AVAILABLE = 0xFFFF;

    /** amdsmi_power_cap_info_t: uint64_t power_cap @0 (µW), default_power_cap, dpm_cap, min, max, reserved[3]; 64 bytes. */
    static final int POWER_CAP_INFO_SIZE = 64;

    /**
     * amdsmi_violation_status_t: 13 uint64_t (timestamps, accumulators, percentages) @0–103, then
     * uint8_t active_prochot_thrm @104, active_ppt_pwr @105, active_socket_thrm @106,
     * active_vr_thrm @107, active_hbm_thrm @108 (1 active, 0 not, 0xFF not supported); reserved; 352 bytes.
     */
    static final int VIOLATION_STATUS_SIZE = 352;
    static final int VIOLATION_ACTIVE_PROCHOT = 104;
    static final int VIOLATION_ACTIVE_PPT = 105;
    static final int VIOLATION_ACTIVE_SOCKET_THERMAL = 106;
    static final int VIOLATION_ACTIVE_VR_THERMAL = 107;
    static final int VIOLATION_ACTIVE_HBM_THERMAL = 108;

    /**
     * amdsmi_xgmi_link_status_t (ROCm 6.4): uint32_t total_links @0; amdsmi_xgmi_link_status_type_t
     * status[8] @4 (0 down, 1 up, 2 disabled); uint64_t reserved[7] @40; 96 bytes.
     */
    static final int XGMI_LINK_STATUS_SIZE = 96;
    static final int XGMI_MAX_LINKS = 8;
    static final int XGMI_LINK_DOWN = 0;
    static final int XGMI_LINK_UP = 1;

    /** amdsmi_evt_notification_data_t: processor handle @0; event type @8; char message[64] @12; 80 bytes. */
    static final int EVENT_DATA_SIZE = 80;
    static final int EVENT_TYPE = 8;
    static final int EVENT_MESSAGE = 12;
    static final int EVENT_MESSAGE_LEN = 64;

    // amdsmi_temperature_type_t and amdsmi_temperature_metric_t
    static final int TEMP_SENSOR_HOTSPOT = 1;
    static final int TEMP_SENSOR_VRAM = 2;
    static final int TEMP_CURRENT = 0;
    static final int TEMP_CRITICAL = 5;
    static final int TEMP_EMERGENCY = 7;

    /** amdsmi_gpu_block_t's UMC bit: the memory controller in front of the HBM. */
    static final long BLOCK_UMC = 0x1L;

    private AmdSmiStructs() {
    }

    static ByteBuffer le(byte[] struct) {
        return ByteBuffer.wrap(struct).order(ByteOrder.nativeOrder());
    }

    /** A NUL-terminated string at {@code offset}, at most {@code length} bytes; null when empty. */
    static String text(byte[] struct, int offset, int length) {
        String s = Native.toString(Arrays.copyOfRange(struct, offset, offset + length)).strip();
        return s.isEmpty() ? null : s;
    }

    /** "0000:3b:00.0" from an amdsmi_bdf_t. */
    static String bdf(long bdf) {
        long function = bdf & 0x7;
        long device = (bdf >>> 3) & 0x1f;
        long bus = (bdf >>> 8) & 0xff;
        long domain = bdf >>> 16;
        return PciBusId.normalize(Long.toHexString(domain) + ':' + Long.toHexString(bus) + ':' + Long.toHexString(device) + '.' + function);
    }

    /** amdsmi_gpu_block_t of a block AMD counts in (UMC for DRAM); null for NVIDIA's SRAM. */
    static Long blockBit(EccBlock block) {
        return switch (block) {
            case DRAM -> 1L;
            case SDMA -> 1L << 1;
            case GFX -> 1L << 2;
            case MMHUB -> 1L << 3;
            case ATHUB -> 1L << 4;
            case PCIE_BIF -> 1L << 5;
            case HDP -> 1L << 6;
            case XGMI_WAFL -> 1L << 7;
            case DF -> 1L << 8;
            case SMN -> 1L << 9;
            case SEM -> 1L << 10;
            case MP0 -> 1L << 11;
            case MP1 -> 1L << 12;
            case FUSE -> 1L << 13;
            case MCA -> 1L << 14;
            case VCN -> 1L << 15;
            case JPEG -> 1L << 16;
            case IH -> 1L << 17;
            case MPIO -> 1L << 18;
            case SRAM -> null;
        };
    }

    /** The bad pages of {@code count} amdsmi_retired_page_record_t by status. */
    static GpuDevice.BadPages badPages(byte[] records, int count) {
        long retired = 0;
        long pending = 0;
        long unreservable = 0;
        ByteBuffer b = le(records);
        for (int i = 0; i < count; i++) {
            switch (b.getInt(i * PAGE_RECORD_SIZE + PAGE_RECORD_STATUS)) {
                case PAGE_RESERVED -> retired++;
                case PAGE_PENDING -> pending++;
                default -> unreservable++;
            }
        }
        return new GpuDevice.BadPages(retired, pending, unreservable);
    }

    /** The socket power of an amdsmi_power_info_t in mW: MI300 reports the current power, MI200 only the average; null when neither. */
    static Long socketPowerMilliwatts(byte[] info) {
        ByteBuffer b = le(info);
        long current = Integer.toUnsignedLong(b.getInt(POWER_CURRENT_SOCKET));
        long average = Integer.toUnsignedLong(b.getInt(POWER_AVERAGE_SOCKET));
        long watts = current != POWER_NOT_AVAILABLE ? current : average;
        return watts == POWER_NOT_AVAILABLE ? null : watts * 1000;
    }

    /** The PCIe generation of a link speed in MT/s (2500 is Gen1 … 64000 Gen6); null when unknown. */
    static Long generation(long megaTransfers) {
        return switch ((int) megaTransfers) {
            case 2500 -> 1L;
            case 5000 -> 2L;
            case 8000 -> 3L;
            case 16000 -> 4L;
            case 32000 -> 5L;
            case 64000 -> 6L;
            default -> null;
        };
    }
}
