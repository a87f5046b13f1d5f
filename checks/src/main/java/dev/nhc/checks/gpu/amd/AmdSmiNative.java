package dev.nhc.checks.gpu.amd;

import com.sun.jna.Function;
import com.sun.jna.NativeLibrary;
import dev.nhc.checks.gpu.calls.NativeBinding;

import java.io.IOException;

/**
 * The AMD SMI functions nhc calls ({@code libamd_smi.so}, the C library under {@code amd-smi}),
 * bound by JNA direct mapping, as {@link dev.nhc.checks.gpu.nvml.NvmlNative} binds NVML: one
 * call costs about a microsecond on a cold JVM instead of a proxy's hundreds.
 *
 * <p>Every function returns an {@code amdsmi_status_t}. {@code amdsmi_processor_handle} and
 * {@code amdsmi_socket_handle} are {@code void*}, passed as {@code long}; a {@code uint32_t*} out
 * parameter is an {@code int[1]}, a {@code uint64_t*} or {@code int64_t*} a {@code long[1]}, a
 * struct a {@code byte[]} of its size ({@link AmdSmiStructs} has the layouts). AMD's enums are
 * C enums ({@code int}) except {@code amdsmi_gpu_block_t}, whose values reach bit 63 and which is
 * therefore 64 bits wide.
 *
 * <p>Functions newer than ROCm 6.1 ({@code amdsmi_get_violation_status} 6.3,
 * {@code amdsmi_get_gpu_xgmi_link_status} 6.4) are looked up by name ({@link #optional}): direct
 * mapping binds a class all or nothing, and an older library must still serve every other check.
 */
public final class AmdSmiNative {
    /** {@code AMDSMI_INIT_AMD_GPUS}: AMD SMI also manages CPUs; nhc asks for the GPUs only. */
    public static final long INIT_AMD_GPUS = 1L << 1;

    private static final NativeBinding BINDING = new NativeBinding(AmdSmiNative.class, "AMD SMI");

    private AmdSmiNative() {
    }

    /**
     * Finds {@code library} (as root, only one that only root can change), loads it by its real
     * path and binds this class to it; again with the same library is a no-op ({@link NativeBinding}).
     * The one place nhc loads AMD SMI.
     */
    public static void bind(String library) throws IOException {
        BINDING.bind(library);
    }

    /** A function of the bound library that older versions lack, or null when this one does not export it. */
    static Function optional(String name) {
        NativeLibrary lib = BINDING.library();
        if (lib == null) {
            return null;
        }
        try {
            return lib.getFunction(name);
        } catch (UnsatisfiedLinkError e) {
            return null;
        }
    }

    public static native int amdsmi_init(long flags);

    public static native int amdsmi_shut_down();

    /** {@code string}: receives a {@code const char*} the library owns. */
    public static native int amdsmi_status_code_to_string(int status, long[] string);

    /** {@code handles} null: {@code count} receives how many there are. */
    public static native int amdsmi_get_socket_handles(int[] count, long[] handles);

    public static native int amdsmi_get_processor_handles(long socket, int[] count, long[] handles);

    /** {@code bdf}: an amdsmi_bdf_t, a uint64_t of bit fields (function 0–2, device 3–7, bus 8–15, domain 16–63). */
    public static native int amdsmi_get_gpu_device_bdf(long processor, long[] bdf);

    /** {@code length}: in, the buffer's size; out, the UUID's length. */
    public static native int amdsmi_get_gpu_device_uuid(long processor, int[] length, byte[] uuid);

    public static native int amdsmi_get_gpu_asic_info(long processor, byte[] info);

    public static native int amdsmi_get_gpu_vbios_info(long processor, byte[] info);

    public static native int amdsmi_get_gpu_driver_info(long processor, byte[] info);

    /** {@code blocks}: a bit mask of amdsmi_gpu_block_t whose ECC is on. */
    public static native int amdsmi_get_gpu_ecc_enabled(long processor, long[] blocks);

    /** {@code counts}: an amdsmi_error_count_t, eight uint64_t (correctable, uncorrectable, deferred, reserved[5]). */
    public static native int amdsmi_get_gpu_total_ecc_count(long processor, long[] counts);

    public static native int amdsmi_get_gpu_ecc_count(long processor, long block, long[] counts);

    /** {@code records} null: {@code count} receives how many bad pages there are. */
    public static native int amdsmi_get_gpu_bad_page_info(long processor, int[] count, byte[] records);

    public static native int amdsmi_get_pcie_info(long processor, byte[] info);

    public static native int amdsmi_get_gpu_activity(long processor, byte[] info);

    /** {@code status}: amdsmi_xgmi_status_t, 0 no errors, 1 error, 2 multiple errors. */
    public static native int amdsmi_gpu_xgmi_error_status(long processor, int[] status);

    /** °C (the library divides hwmon's millidegrees by 1000, whatever its header's comment says). */
    public static native int amdsmi_get_temp_metric(long processor, int sensor, int metric, long[] temperature);

    public static native int amdsmi_get_power_info(long processor, byte[] info);

    public static native int amdsmi_get_power_cap_info(long processor, int sensor, byte[] info);

    public static native int amdsmi_init_gpu_event_notification(long processor);

    public static native int amdsmi_set_gpu_event_notification_mask(long processor, long mask);

    /** {@code count}: in, the elements {@code data} holds; out, how many were written. */
    public static native int amdsmi_get_gpu_event_notification(int timeoutMs, int[] count, byte[] data);

    public static native int amdsmi_stop_gpu_event_notification(long processor);
}
