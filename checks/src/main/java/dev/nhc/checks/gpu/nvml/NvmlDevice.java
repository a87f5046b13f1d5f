package dev.nhc.checks.gpu.nvml;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.LongByReference;
import dev.nhc.checks.gpu.GpuCallException;
import dev.nhc.checks.gpu.GpuDevice;

/** One GPU through NVML, for one probe: each getter is one NVML call on the GPU's thread under the probe's deadline. */
final class NvmlDevice implements GpuDevice {
    private static final int TEXT = 96;

    private final NvmlGpu gpu;
    private final Deadline deadline;

    NvmlDevice(NvmlGpu gpu, Deadline deadline) {
        this.gpu = gpu;
        this.deadline = deadline;
    }

    @Override
    public int index() {
        return gpu.index();
    }

    @Override
    public String pciBusId() {
        if (gpu.pciBusId() == null) {
            try {
                gpu.awaitOpen(deadline);
            } catch (GpuCallException e) {
                return null;    // the failure surfaces with the first real call
            }
        }
        return gpu.pciBusId();
    }

    @Override
    public String label() {
        pciBusId();
        return gpu.label();
    }

    private String text(String name, TextCall c) throws GpuCallException {
        return gpu.call(name, deadline, (lib, h) -> {
            byte[] buf = new byte[TEXT];
            return gpu.check(c.call(lib, h, buf), name, true) ? Native.toString(buf) : null;
        });
    }

    private interface TextCall {
        int call(NvmlLibrary lib, com.sun.jna.Pointer h, byte[] buf);
    }

    private interface UintCall {
        int call(NvmlLibrary lib, com.sun.jna.Pointer h, IntByReference out);
    }

    private interface U64Call {
        int call(NvmlLibrary lib, com.sun.jna.Pointer h, LongByReference out);
    }

    private Long uint(String name, UintCall c) throws GpuCallException {
        return gpu.call(name, deadline, (lib, h) -> {
            IntByReference out = new IntByReference();
            return gpu.check(c.call(lib, h, out), name, true) ? Integer.toUnsignedLong(out.getValue()) : null;
        });
    }

    private Long u64(String name, U64Call c) throws GpuCallException {
        return gpu.call(name, deadline, (lib, h) -> {
            LongByReference out = new LongByReference();
            // counters never come near 2^63; a value past it would read negative and is clamped
            return gpu.check(c.call(lib, h, out), name, true) ? Math.max(0, out.getValue()) : null;
        });
    }

    private static Boolean flag(Long v) {
        return v == null ? null : v != 0;
    }

    @Override
    public String name() throws GpuCallException {
        return text("nvmlDeviceGetName", (lib, h, b) -> lib.nvmlDeviceGetName(h, b, b.length));
    }

    @Override
    public String uuid() throws GpuCallException {
        return text("nvmlDeviceGetUUID", (lib, h, b) -> lib.nvmlDeviceGetUUID(h, b, b.length));
    }

    @Override
    public Boolean persistenceMode() throws GpuCallException {
        return flag(uint("nvmlDeviceGetPersistenceMode", NvmlLibrary::nvmlDeviceGetPersistenceMode));
    }

    @Override
    public Boolean eccEnabled() throws GpuCallException {
        return flag(uint("nvmlDeviceGetEccMode", (lib, h, out) -> lib.nvmlDeviceGetEccMode(h, out, new IntByReference())));
    }

    @Override
    public Long eccErrors(EccCounter counter, EccError type, MemoryLocation location) throws GpuCallException {
        if (location == null) {
            return u64("nvmlDeviceGetTotalEccErrors",
                    (lib, h, out) -> lib.nvmlDeviceGetTotalEccErrors(h, type.ordinal(), counter.ordinal(), out));
        }
        return u64("nvmlDeviceGetMemoryErrorCounter",
                (lib, h, out) -> lib.nvmlDeviceGetMemoryErrorCounter(h, type.ordinal(), counter.ordinal(), location.nvml, out));
    }

    @Override
    public RemappedRows remappedRows() throws GpuCallException {
        String name = "nvmlDeviceGetRemappedRows";
        return gpu.call(name, deadline, (lib, h) -> {
            IntByReference corr = new IntByReference();
            IntByReference unc = new IntByReference();
            IntByReference pending = new IntByReference();
            IntByReference failure = new IntByReference();
            if (!gpu.check(lib.nvmlDeviceGetRemappedRows(h, corr, unc, pending, failure), name, true)) {
                return null;
            }
            return new RemappedRows(Integer.toUnsignedLong(corr.getValue()), Integer.toUnsignedLong(unc.getValue()),
                    pending.getValue() != 0, failure.getValue() != 0);
        });
    }

    @Override
    public Long retiredPages(RetirementCause cause) throws GpuCallException {
        String name = "nvmlDeviceGetRetiredPages_v2";
        return gpu.call(name, deadline, (lib, h) -> {
            // A size query: count 0 and no buffers; NVML answers with the count (some versions via INSUFFICIENT_SIZE).
            IntByReference count = new IntByReference(0);
            int rc = lib.nvmlDeviceGetRetiredPages_v2(h, cause.ordinal(), count, null, null);
            if (rc == NvmlReturn.INSUFFICIENT_SIZE) {
                rc = NvmlReturn.SUCCESS;
            }
            return gpu.check(rc, name, true) ? Integer.toUnsignedLong(count.getValue()) : null;
        });
    }

    @Override
    public Boolean retiredPagesPending() throws GpuCallException {
        return flag(uint("nvmlDeviceGetRetiredPagesPendingStatus", NvmlLibrary::nvmlDeviceGetRetiredPagesPendingStatus));
    }

    @Override
    public Long pcieGeneration() throws GpuCallException {
        return uint("nvmlDeviceGetCurrPcieLinkGeneration", NvmlLibrary::nvmlDeviceGetCurrPcieLinkGeneration);
    }

    @Override
    public Long pcieMaxGeneration() throws GpuCallException {
        return uint("nvmlDeviceGetMaxPcieLinkGeneration", NvmlLibrary::nvmlDeviceGetMaxPcieLinkGeneration);
    }

    @Override
    public Long pcieWidth() throws GpuCallException {
        return uint("nvmlDeviceGetCurrPcieLinkWidth", NvmlLibrary::nvmlDeviceGetCurrPcieLinkWidth);
    }

    @Override
    public Long pcieMaxWidth() throws GpuCallException {
        return uint("nvmlDeviceGetMaxPcieLinkWidth", NvmlLibrary::nvmlDeviceGetMaxPcieLinkWidth);
    }

    @Override
    public Long pcieReplays() throws GpuCallException {
        return uint("nvmlDeviceGetPcieReplayCounter", NvmlLibrary::nvmlDeviceGetPcieReplayCounter);
    }

    @Override
    public Boolean nvlinkActive(int link) throws GpuCallException {
        String name = "nvmlDeviceGetNvLinkState";
        return gpu.call(name, deadline, (lib, h) -> {
            IntByReference active = new IntByReference();
            int rc = lib.nvmlDeviceGetNvLinkState(h, link, active);
            // Past the GPU's last link NVML says NOT_SUPPORTED or INVALID_ARGUMENT: no such link.
            if (rc == NvmlReturn.INVALID_ARGUMENT) {
                return null;
            }
            return gpu.check(rc, name, true) ? active.getValue() != 0 : null;
        });
    }

    @Override
    public Long nvlinkErrors(int link, NvLinkCounter counter) throws GpuCallException {
        return u64("nvmlDeviceGetNvLinkErrorCounter",
                (lib, h, out) -> lib.nvmlDeviceGetNvLinkErrorCounter(h, link, counter.ordinal(), out));
    }

    @Override
    public Long temperature() throws GpuCallException {
        return uint("nvmlDeviceGetTemperature", (lib, h, out) -> lib.nvmlDeviceGetTemperature(h, 0, out));
    }

    @Override
    public Long memoryTemperature() throws GpuCallException {
        String name = "nvmlDeviceGetFieldValues";
        return gpu.call(name, deadline, (lib, h) -> {
            Memory values = new Memory(NvmlLibrary.FIELD_VALUE_SIZE);
            values.clear();
            values.setInt(0, NvmlLibrary.FIELD_MEMORY_TEMP);
            if (!gpu.check(lib.nvmlDeviceGetFieldValues(h, 1, values), name, true)) {
                return null;
            }
            int rc = values.getInt(NvmlLibrary.FIELD_VALUE_RETURN_OFFSET);
            if (!gpu.check(rc, name + "(MEMORY_TEMP)", true)) {
                return null;
            }
            // NVML reports this field as an unsigned int (value type 1); take the low 32 bits
            return Integer.toUnsignedLong(values.getInt(NvmlLibrary.FIELD_VALUE_VALUE_OFFSET));
        });
    }

    @Override
    public Long temperatureThreshold(TemperatureThreshold threshold) throws GpuCallException {
        return uint("nvmlDeviceGetTemperatureThreshold",
                (lib, h, out) -> lib.nvmlDeviceGetTemperatureThreshold(h, threshold.ordinal(), out));
    }

    @Override
    public Long clocksEventReasons() throws GpuCallException {
        return u64("nvmlDeviceGetCurrentClocksEventReasons", NvmlLibrary::nvmlDeviceGetCurrentClocksEventReasons);
    }

    @Override
    public Long powerUsageMilliwatts() throws GpuCallException {
        return uint("nvmlDeviceGetPowerUsage", NvmlLibrary::nvmlDeviceGetPowerUsage);
    }

    @Override
    public Long enforcedPowerLimitMilliwatts() throws GpuCallException {
        return uint("nvmlDeviceGetEnforcedPowerLimit", NvmlLibrary::nvmlDeviceGetEnforcedPowerLimit);
    }
}
