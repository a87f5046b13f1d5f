package dev.nhc.checks.gpu.nvml;

import com.sun.jna.Native;
import dev.nhc.checks.gpu.GpuCallException;
import dev.nhc.checks.gpu.GpuDevice;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

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
    public <T> T batch(Batch<T> work) throws GpuCallException {
        return gpu.batch(deadline, work);
    }

    @Override
    public String label() {
        pciBusId();
        return gpu.label();
    }

    private interface TextCall {
        int call(long h, byte[] buf);
    }

    private interface UintCall {
        int call(long h, int[] out);
    }

    private interface U64Call {
        int call(long h, long[] out);
    }

    private String text(String name, TextCall c) throws GpuCallException {
        return gpu.call(name, deadline, h -> {
            byte[] buf = new byte[TEXT];
            return gpu.check(c.call(h, buf), name, true) ? Native.toString(buf) : null;
        });
    }

    private Long uint(String name, UintCall c) throws GpuCallException {
        return gpu.call(name, deadline, h -> {
            int[] out = new int[1];
            return gpu.check(c.call(h, out), name, true) ? Integer.toUnsignedLong(out[0]) : null;
        });
    }

    private Long u64(String name, U64Call c) throws GpuCallException {
        return gpu.call(name, deadline, h -> {
            long[] out = new long[1];
            // counters never come near 2^63; a value past it would read negative and is clamped
            return gpu.check(c.call(h, out), name, true) ? Math.max(0, out[0]) : null;
        });
    }

    private static Boolean flag(Long v) {
        return v == null ? null : v != 0;
    }

    @Override
    public String name() throws GpuCallException {
        return text("nvmlDeviceGetName", (h, b) -> NvmlNative.nvmlDeviceGetName(h, b, b.length));
    }

    @Override
    public String uuid() throws GpuCallException {
        return text("nvmlDeviceGetUUID", (h, b) -> NvmlNative.nvmlDeviceGetUUID(h, b, b.length));
    }

    @Override
    public Boolean persistenceMode() throws GpuCallException {
        return flag(uint("nvmlDeviceGetPersistenceMode", NvmlNative::nvmlDeviceGetPersistenceMode));
    }

    @Override
    public Boolean eccEnabled() throws GpuCallException {
        return flag(uint("nvmlDeviceGetEccMode", (h, out) -> NvmlNative.nvmlDeviceGetEccMode(h, out, new int[1])));
    }

    @Override
    public Long eccErrors(EccCounter counter, EccError type, MemoryLocation location) throws GpuCallException {
        if (location == null) {
            return u64("nvmlDeviceGetTotalEccErrors",
                    (h, out) -> NvmlNative.nvmlDeviceGetTotalEccErrors(h, type.ordinal(), counter.ordinal(), out));
        }
        return u64("nvmlDeviceGetMemoryErrorCounter",
                (h, out) -> NvmlNative.nvmlDeviceGetMemoryErrorCounter(h, type.ordinal(), counter.ordinal(), location.nvml, out));
    }

    @Override
    public RemappedRows remappedRows() throws GpuCallException {
        String name = "nvmlDeviceGetRemappedRows";
        return gpu.call(name, deadline, h -> {
            int[] corr = new int[1];
            int[] unc = new int[1];
            int[] pending = new int[1];
            int[] failure = new int[1];
            if (!gpu.check(NvmlNative.nvmlDeviceGetRemappedRows(h, corr, unc, pending, failure), name, true)) {
                return null;
            }
            return new RemappedRows(Integer.toUnsignedLong(corr[0]), Integer.toUnsignedLong(unc[0]), pending[0] != 0, failure[0] != 0);
        });
    }

    @Override
    public Long retiredPages(RetirementCause cause) throws GpuCallException {
        String name = "nvmlDeviceGetRetiredPages_v2";
        return gpu.call(name, deadline, h -> {
            // A size query: count 0 and no buffers; NVML answers with the count (some versions via INSUFFICIENT_SIZE).
            int[] count = new int[1];
            int rc = NvmlNative.nvmlDeviceGetRetiredPages_v2(h, cause.ordinal(), count, null, null);
            if (rc == NvmlReturn.INSUFFICIENT_SIZE) {
                rc = NvmlReturn.SUCCESS;
            }
            return gpu.check(rc, name, true) ? Integer.toUnsignedLong(count[0]) : null;
        });
    }

    @Override
    public Boolean retiredPagesPending() throws GpuCallException {
        return flag(uint("nvmlDeviceGetRetiredPagesPendingStatus", NvmlNative::nvmlDeviceGetRetiredPagesPendingStatus));
    }

    @Override
    public Long pcieGeneration() throws GpuCallException {
        return uint("nvmlDeviceGetCurrPcieLinkGeneration", NvmlNative::nvmlDeviceGetCurrPcieLinkGeneration);
    }

    @Override
    public Long pcieMaxGeneration() throws GpuCallException {
        return uint("nvmlDeviceGetMaxPcieLinkGeneration", NvmlNative::nvmlDeviceGetMaxPcieLinkGeneration);
    }

    @Override
    public Long pcieWidth() throws GpuCallException {
        return uint("nvmlDeviceGetCurrPcieLinkWidth", NvmlNative::nvmlDeviceGetCurrPcieLinkWidth);
    }

    @Override
    public Long pcieMaxWidth() throws GpuCallException {
        return uint("nvmlDeviceGetMaxPcieLinkWidth", NvmlNative::nvmlDeviceGetMaxPcieLinkWidth);
    }

    @Override
    public Long pcieReplays() throws GpuCallException {
        return uint("nvmlDeviceGetPcieReplayCounter", NvmlNative::nvmlDeviceGetPcieReplayCounter);
    }

    @Override
    public Boolean nvlinkActive(int link) throws GpuCallException {
        String name = "nvmlDeviceGetNvLinkState";
        return gpu.call(name, deadline, h -> {
            int[] active = new int[1];
            int rc = NvmlNative.nvmlDeviceGetNvLinkState(h, link, active);
            // Past the GPU's last link NVML says NOT_SUPPORTED or INVALID_ARGUMENT: no such link.
            if (rc == NvmlReturn.INVALID_ARGUMENT) {
                return null;
            }
            return gpu.check(rc, name, true) ? active[0] != 0 : null;
        });
    }

    @Override
    public Long nvlinkErrors(int link, NvLinkCounter counter) throws GpuCallException {
        return u64("nvmlDeviceGetNvLinkErrorCounter",
                (h, out) -> NvmlNative.nvmlDeviceGetNvLinkErrorCounter(h, link, counter.ordinal(), out));
    }

    @Override
    public Long temperature() throws GpuCallException {
        return uint("nvmlDeviceGetTemperature", (h, out) -> NvmlNative.nvmlDeviceGetTemperature(h, 0, out));
    }

    @Override
    public Long memoryTemperature() throws GpuCallException {
        String name = "nvmlDeviceGetFieldValues";
        return gpu.call(name, deadline, h -> {
            ByteBuffer values = ByteBuffer.allocate(NvmlNative.FIELD_VALUE_SIZE).order(ByteOrder.nativeOrder());
            values.putInt(0, NvmlNative.FIELD_MEMORY_TEMP);
            byte[] raw = values.array();
            if (!gpu.check(NvmlNative.nvmlDeviceGetFieldValues(h, 1, raw), name, true)) {
                return null;
            }
            ByteBuffer out = ByteBuffer.wrap(raw).order(ByteOrder.nativeOrder());
            if (!gpu.check(out.getInt(NvmlNative.FIELD_VALUE_RETURN_OFFSET), name + "(MEMORY_TEMP)", true)) {
                return null;
            }
            // NVML reports this field as an unsigned int (value type 1): the low 32 bits of the value
            return Integer.toUnsignedLong(out.getInt(NvmlNative.FIELD_VALUE_VALUE_OFFSET));
        });
    }

    @Override
    public Long temperatureThreshold(TemperatureThreshold threshold) throws GpuCallException {
        return uint("nvmlDeviceGetTemperatureThreshold",
                (h, out) -> NvmlNative.nvmlDeviceGetTemperatureThreshold(h, threshold.ordinal(), out));
    }

    @Override
    public Long clocksEventReasons() throws GpuCallException {
        return u64("nvmlDeviceGetCurrentClocksEventReasons", NvmlNative::nvmlDeviceGetCurrentClocksEventReasons);
    }

    @Override
    public Long powerUsageMilliwatts() throws GpuCallException {
        return uint("nvmlDeviceGetPowerUsage", NvmlNative::nvmlDeviceGetPowerUsage);
    }

    @Override
    public Long enforcedPowerLimitMilliwatts() throws GpuCallException {
        return uint("nvmlDeviceGetEnforcedPowerLimit", NvmlNative::nvmlDeviceGetEnforcedPowerLimit);
    }
}
