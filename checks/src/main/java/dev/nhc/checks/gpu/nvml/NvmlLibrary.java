package dev.nhc.checks.gpu.nvml;

import com.sun.jna.Library;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.LongByReference;
import com.sun.jna.ptr.PointerByReference;

/**
 * The NVML functions nhc calls, by their exported names (the {@code _v2}/{@code _v3} symbols
 * directly: header macros do not exist through JNA). Every function returns an nvmlReturn_t;
 * {@code nvmlDevice_t} handles are opaque pointers; enums are ints; {@code unsigned int*} is an
 * IntByReference and {@code unsigned long long*} a LongByReference.
 */
public interface NvmlLibrary extends Library {

    int nvmlInit_v2();

    int nvmlShutdown();

    String nvmlErrorString(int result);

    int nvmlSystemGetDriverVersion(byte[] version, int length);

    int nvmlDeviceGetCount_v2(IntByReference count);

    int nvmlDeviceGetHandleByIndex_v2(int index, PointerByReference device);

    int nvmlDeviceGetName(Pointer device, byte[] name, int length);

    int nvmlDeviceGetUUID(Pointer device, byte[] uuid, int length);

    /** {@code pci} points to an nvmlPciInfo_t ({@link #PCI_INFO_SIZE} bytes). */
    int nvmlDeviceGetPciInfo_v3(Pointer device, Pointer pci);

    int nvmlDeviceGetPersistenceMode(Pointer device, IntByReference mode);

    int nvmlDeviceGetEccMode(Pointer device, IntByReference current, IntByReference pending);

    int nvmlDeviceGetTotalEccErrors(Pointer device, int errorType, int counterType, LongByReference count);

    int nvmlDeviceGetMemoryErrorCounter(Pointer device, int errorType, int counterType, int location, LongByReference count);

    int nvmlDeviceGetRemappedRows(Pointer device, IntByReference corrRows, IntByReference uncRows,
                                  IntByReference isPending, IntByReference failureOccurred);

    int nvmlDeviceGetRetiredPages_v2(Pointer device, int cause, IntByReference pageCount, Pointer addresses, Pointer timestamps);

    int nvmlDeviceGetRetiredPagesPendingStatus(Pointer device, IntByReference isPending);

    int nvmlDeviceGetCurrPcieLinkGeneration(Pointer device, IntByReference value);

    int nvmlDeviceGetCurrPcieLinkWidth(Pointer device, IntByReference value);

    int nvmlDeviceGetMaxPcieLinkGeneration(Pointer device, IntByReference value);

    int nvmlDeviceGetMaxPcieLinkWidth(Pointer device, IntByReference value);

    int nvmlDeviceGetPcieReplayCounter(Pointer device, IntByReference value);

    int nvmlDeviceGetNvLinkState(Pointer device, int link, IntByReference isActive);

    int nvmlDeviceGetNvLinkErrorCounter(Pointer device, int link, int counter, LongByReference value);

    int nvmlDeviceGetTemperature(Pointer device, int sensor, IntByReference temp);

    int nvmlDeviceGetTemperatureThreshold(Pointer device, int thresholdType, IntByReference temp);

    int nvmlDeviceGetCurrentClocksEventReasons(Pointer device, LongByReference reasons);

    int nvmlDeviceGetPowerUsage(Pointer device, IntByReference milliwatts);

    int nvmlDeviceGetEnforcedPowerLimit(Pointer device, IntByReference milliwatts);

    /** {@code values} points to {@code count} nvmlFieldValue_t ({@link #FIELD_VALUE_SIZE} bytes each). */
    int nvmlDeviceGetFieldValues(Pointer device, int count, Pointer values);

    int nvmlEventSetCreate(PointerByReference set);

    int nvmlDeviceRegisterEvents(Pointer device, long eventTypes, Pointer set);

    /** {@code data} points to an nvmlEventData_t ({@link #EVENT_DATA_SIZE} bytes). */
    int nvmlEventSetWait_v2(Pointer set, Pointer data, int timeoutMs);

    int nvmlEventSetFree(Pointer set);

    /** nvmlPciInfo_t: char busIdLegacy[16]; uint domain, bus, device, pciDeviceId, pciSubSystemId; char busId[32]. */
    int PCI_INFO_SIZE = 68;
    int PCI_INFO_BUS_ID_OFFSET = 36;

    /** nvmlFieldValue_t: uint fieldId, scopeId; long long timestamp, latencyUsec; int valueType, nvmlReturn; 8-byte value. */
    int FIELD_VALUE_SIZE = 40;
    int FIELD_VALUE_RETURN_OFFSET = 28;
    int FIELD_VALUE_TYPE_OFFSET = 24;
    int FIELD_VALUE_VALUE_OFFSET = 32;
    int FIELD_MEMORY_TEMP = 82;

    /** nvmlEventData_t: device pointer; u64 eventType, eventData; uint gpuInstanceId, computeInstanceId. */
    int EVENT_DATA_SIZE = 32;
    long EVENT_TYPE_XID_CRITICAL_ERROR = 0x8L;
}
