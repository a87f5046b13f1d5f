package dev.nhc.checks.gpu.nvml;

import com.sun.jna.Pointer;
import dev.nhc.checks.gpu.calls.NativeBinding;

import java.io.IOException;

/**
 * The NVML functions nhc calls, bound by JNA direct mapping under their exported names (the
 * {@code _v2}/{@code _v3} symbols: header macros do not exist here). Direct mapping rather than a
 * JNA interface because a one-shot run makes a thousand calls on a cold JVM: through an
 * interface proxy each costs a few hundred microseconds, directly about one.
 *
 * <p>Every function returns an nvmlReturn_t. {@code nvmlDevice_t} and {@code nvmlEventSet_t}
 * handles are passed as {@code long} (pointer-sized on the 64-bit platforms nhc supports); an
 * {@code unsigned int*} out-parameter is an {@code int[1]}, an {@code unsigned long long*} a
 * {@code long[1]}, a struct a {@code byte[]} of its size. A class binds one library per process.
 */
public final class NvmlNative {

    /** nvmlPciInfo_t: char busIdLegacy[16]; uint domain, bus, device, pciDeviceId, pciSubSystemId; char busId[32]. */
    public static final int PCI_INFO_SIZE = 68;
    public static final int PCI_INFO_BUS_ID_OFFSET = 36;

    /** nvmlFieldValue_t: uint fieldId, scopeId; long long timestamp, latencyUsec; int valueType, nvmlReturn; 8-byte value. */
    public static final int FIELD_VALUE_SIZE = 40;
    public static final int FIELD_VALUE_RETURN_OFFSET = 28;
    public static final int FIELD_VALUE_VALUE_OFFSET = 32;
    public static final int FIELD_MEMORY_TEMP = 82;

    /** nvmlEventData_t: device pointer; u64 eventType, eventData; uint gpuInstanceId, computeInstanceId. */
    public static final int EVENT_DATA_SIZE = 32;
    public static final long EVENT_TYPE_XID_CRITICAL_ERROR = 0x8L;

    /** nvmlPstates_t's NVML_PSTATE_UNKNOWN. */
    public static final int PSTATE_UNKNOWN = 32;

    private static final NativeBinding BINDING = new NativeBinding(NvmlNative.class, "NVML");

    private NvmlNative() {
    }

    /**
     * Finds {@code library} (as root, only one that only root can change), loads it by its real
     * path and binds this class to it; again with the same library is a no-op ({@link NativeBinding}).
     */
    public static void bind(String library) throws IOException {
        BINDING.bind(library);
    }

    public static native int nvmlInit_v2();

    public static native int nvmlShutdown();

    public static native Pointer nvmlErrorString(int result);

    public static native int nvmlSystemGetDriverVersion(byte[] version, int length);

    public static native int nvmlDeviceGetCount_v2(int[] count);

    public static native int nvmlDeviceGetHandleByIndex_v2(int index, long[] device);

    public static native int nvmlDeviceGetName(long device, byte[] name, int length);

    public static native int nvmlDeviceGetUUID(long device, byte[] uuid, int length);

    public static native int nvmlDeviceGetPciInfo_v3(long device, byte[] pciInfo);

    public static native int nvmlDeviceGetPersistenceMode(long device, int[] mode);

    public static native int nvmlDeviceGetEccMode(long device, int[] current, int[] pending);

    public static native int nvmlDeviceGetTotalEccErrors(long device, int errorType, int counterType, long[] count);

    public static native int nvmlDeviceGetMemoryErrorCounter(long device, int errorType, int counterType, int location, long[] count);

    public static native int nvmlDeviceGetRemappedRows(long device, int[] corrRows, int[] uncRows, int[] isPending, int[] failureOccurred);

    public static native int nvmlDeviceGetRetiredPages_v2(long device, int cause, int[] pageCount, Pointer addresses, Pointer timestamps);

    public static native int nvmlDeviceGetRetiredPagesPendingStatus(long device, int[] isPending);

    public static native int nvmlDeviceGetCurrPcieLinkGeneration(long device, int[] value);

    public static native int nvmlDeviceGetCurrPcieLinkWidth(long device, int[] value);

    public static native int nvmlDeviceGetMaxPcieLinkGeneration(long device, int[] value);

    public static native int nvmlDeviceGetMaxPcieLinkWidth(long device, int[] value);

    public static native int nvmlDeviceGetPcieReplayCounter(long device, int[] value);

    /** {@code pState}: nvmlPstates_t, 0 (P0) to 15, or 32 for unknown. */
    public static native int nvmlDeviceGetPerformanceState(long device, int[] pState);

    /** {@code utilization}: an nvmlUtilization_t, {uint gpu; uint memory} in percent, as an {@code int[2]}. */
    public static native int nvmlDeviceGetUtilizationRates(long device, int[] utilization);

    public static native int nvmlDeviceGetNvLinkState(long device, int link, int[] isActive);

    public static native int nvmlDeviceGetNvLinkErrorCounter(long device, int link, int counter, long[] value);

    public static native int nvmlDeviceGetTemperature(long device, int sensor, int[] temp);

    public static native int nvmlDeviceGetTemperatureThreshold(long device, int thresholdType, int[] temp);

    public static native int nvmlDeviceGetCurrentClocksEventReasons(long device, long[] reasons);

    public static native int nvmlDeviceGetPowerUsage(long device, int[] milliwatts);

    public static native int nvmlDeviceGetEnforcedPowerLimit(long device, int[] milliwatts);

    /** {@code values}: {@code count} nvmlFieldValue_t of {@link #FIELD_VALUE_SIZE} bytes, fieldId filled in. */
    public static native int nvmlDeviceGetFieldValues(long device, int count, byte[] values);

    public static native int nvmlEventSetCreate(long[] set);

    public static native int nvmlDeviceRegisterEvents(long device, long eventTypes, long set);

    /** {@code data}: an nvmlEventData_t of {@link #EVENT_DATA_SIZE} bytes. */
    public static native int nvmlEventSetWait_v2(long set, byte[] data, int timeoutMs);

    public static native int nvmlEventSetFree(long set);

    /** The library this class is bound to, or null: the calls only some drivers have are looked up in it by name ({@link NvmlFabricCalls}). */
    static String boundLibrary() {
        return BINDING.path();
    }
}
