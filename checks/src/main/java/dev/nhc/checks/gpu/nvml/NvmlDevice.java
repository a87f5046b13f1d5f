package dev.nhc.checks.gpu.nvml;

import com.sun.jna.Function;
import com.sun.jna.Native;
import dev.nhc.checks.gpu.GpuCallException;
import dev.nhc.checks.gpu.GpuFabric;
import dev.nhc.checks.gpu.GpuVendor;
import dev.nhc.checks.gpu.calls.Deadline;
import dev.nhc.checks.gpu.calls.LibraryDevice;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * One GPU through NVML, for one probe: each getter is one NVML call under the probe's deadline.
 * Inside a {@link #batch} (how the probes read) the getters run on the GPU's own thread and call
 * NVML directly; called from elsewhere, a getter hands itself to that thread. The calls are
 * written out one by one, without lambdas, because each lambda costs a class spun at start-up.
 *
 * <p>Pattern of a getter: {@code gpu.begin(name)} marks the call in flight and gives the handle,
 * the native call runs, {@code present(name, rc)} ends it and decides: true for a value, false
 * for NOT_SUPPORTED or a recorded problem, an exception for a lost GPU.
 */
final class NvmlDevice extends LibraryDevice {
    private static final int TEXT = 96;

    private final NvmlGpu gpu;

    NvmlDevice(NvmlGpu gpu, Deadline deadline) {
        super(gpu.calls(), deadline);
        this.gpu = gpu;
    }

    @Override
    public GpuVendor vendor() {
        return GpuVendor.NVIDIA;
    }

    @Override
    public <T> T batch(Batch<T> work) throws GpuCallException {
        return calls.batch(deadline, work);
    }

    @Override
    protected boolean check(int rc, String name) throws GpuCallException {
        return gpu.check(rc, name, true);
    }

    private static Long unsigned(int v) {
        return Integer.toUnsignedLong(v);
    }

    @Override
    public String name() throws GpuCallException {
        if (!calls.onWorker()) {
            return batch(this::name);
        }
        byte[] b = new byte[TEXT];
        String n = "nvmlDeviceGetName";
        return present(n, NvmlNative.nvmlDeviceGetName(begin(n), b, b.length)) ? Native.toString(b) : null;
    }

    @Override
    public String uuid() throws GpuCallException {
        if (!calls.onWorker()) {
            return batch(this::uuid);
        }
        byte[] b = new byte[TEXT];
        String n = "nvmlDeviceGetUUID";
        return present(n, NvmlNative.nvmlDeviceGetUUID(begin(n), b, b.length)) ? Native.toString(b) : null;
    }

    @Override
    public Boolean persistenceMode() throws GpuCallException {
        if (!calls.onWorker()) {
            return batch(this::persistenceMode);
        }
        int[] v = new int[1];
        String n = "nvmlDeviceGetPersistenceMode";
        return present(n, NvmlNative.nvmlDeviceGetPersistenceMode(begin(n), v)) ? v[0] != 0 : null;
    }

    @Override
    public Boolean eccEnabled() throws GpuCallException {
        if (!calls.onWorker()) {
            return batch(this::eccEnabled);
        }
        int[] current = new int[1];
        String n = "nvmlDeviceGetEccMode";
        return present(n, NvmlNative.nvmlDeviceGetEccMode(begin(n), current, new int[1])) ? current[0] != 0 : null;
    }

    @Override
    public Long eccErrors(EccCounter counter, EccError type, EccBlock block) throws GpuCallException {
        Integer location = block == null ? null : location(block);
        if (type == EccError.DEFERRED || (block != null && location == null)) {
            return null;    // AMD's: NVML counts neither deferred errors nor AMD's RAS blocks
        }
        if (!calls.onWorker()) {
            return batch(() -> eccErrors(counter, type, block));
        }
        long[] v = new long[1];
        if (location == null) {
            String n = "nvmlDeviceGetTotalEccErrors";
            return present(n, NvmlNative.nvmlDeviceGetTotalEccErrors(begin(n), type.ordinal(), counter.ordinal(), v)) ? count(v) : null;
        }
        String n = "nvmlDeviceGetMemoryErrorCounter";
        return present(n, NvmlNative.nvmlDeviceGetMemoryErrorCounter(begin(n), type.ordinal(), counter.ordinal(), location, v))
                ? count(v) : null;
    }

    /** nvmlMemoryLocation_t of the blocks NVML counts in: device memory (DRAM) 2, SRAM 7. */
    private static Integer location(EccBlock block) {
        return switch (block) {
            case DRAM -> 2;
            case SRAM -> 7;
            default -> null;
        };
    }

    /** Counters never come near 2^63; a value past it would read negative and is clamped. */
    private static Long count(long[] v) {
        return Math.max(0, v[0]);
    }

    @Override
    public RemappedRows remappedRows() throws GpuCallException {
        if (!calls.onWorker()) {
            return batch(this::remappedRows);
        }
        int[] corr = new int[1];
        int[] unc = new int[1];
        int[] pending = new int[1];
        int[] failure = new int[1];
        String n = "nvmlDeviceGetRemappedRows";
        if (!present(n, NvmlNative.nvmlDeviceGetRemappedRows(begin(n), corr, unc, pending, failure))) {
            return null;
        }
        return new RemappedRows(unsigned(corr[0]), unsigned(unc[0]), pending[0] != 0, failure[0] != 0);
    }

    @Override
    public Long retiredPages(RetirementCause cause) throws GpuCallException {
        if (!calls.onWorker()) {
            return batch(() -> retiredPages(cause));
        }
        // A size query: count 0 and no buffers; NVML answers with the count (some versions via INSUFFICIENT_SIZE).
        int[] count = new int[1];
        String n = "nvmlDeviceGetRetiredPages_v2";
        int rc = NvmlNative.nvmlDeviceGetRetiredPages_v2(begin(n), cause.ordinal(), count, null, null);
        return present(n, rc == NvmlReturn.INSUFFICIENT_SIZE ? NvmlReturn.SUCCESS : rc) ? unsigned(count[0]) : null;
    }

    @Override
    public Boolean retiredPagesPending() throws GpuCallException {
        if (!calls.onWorker()) {
            return batch(this::retiredPagesPending);
        }
        int[] v = new int[1];
        String n = "nvmlDeviceGetRetiredPagesPendingStatus";
        return present(n, NvmlNative.nvmlDeviceGetRetiredPagesPendingStatus(begin(n), v)) ? v[0] != 0 : null;
    }

    @Override
    public Long pcieGeneration() throws GpuCallException {
        if (!calls.onWorker()) {
            return batch(this::pcieGeneration);
        }
        int[] v = new int[1];
        String n = "nvmlDeviceGetCurrPcieLinkGeneration";
        return present(n, NvmlNative.nvmlDeviceGetCurrPcieLinkGeneration(begin(n), v)) ? unsigned(v[0]) : null;
    }

    @Override
    public Long pcieMaxGeneration() throws GpuCallException {
        if (!calls.onWorker()) {
            return batch(this::pcieMaxGeneration);
        }
        int[] v = new int[1];
        String n = "nvmlDeviceGetMaxPcieLinkGeneration";
        return present(n, NvmlNative.nvmlDeviceGetMaxPcieLinkGeneration(begin(n), v)) ? unsigned(v[0]) : null;
    }

    @Override
    public Long pcieWidth() throws GpuCallException {
        if (!calls.onWorker()) {
            return batch(this::pcieWidth);
        }
        int[] v = new int[1];
        String n = "nvmlDeviceGetCurrPcieLinkWidth";
        return present(n, NvmlNative.nvmlDeviceGetCurrPcieLinkWidth(begin(n), v)) ? unsigned(v[0]) : null;
    }

    @Override
    public Long pcieMaxWidth() throws GpuCallException {
        if (!calls.onWorker()) {
            return batch(this::pcieMaxWidth);
        }
        int[] v = new int[1];
        String n = "nvmlDeviceGetMaxPcieLinkWidth";
        return present(n, NvmlNative.nvmlDeviceGetMaxPcieLinkWidth(begin(n), v)) ? unsigned(v[0]) : null;
    }

    @Override
    public Long pcieReplays() throws GpuCallException {
        if (!calls.onWorker()) {
            return batch(this::pcieReplays);
        }
        int[] v = new int[1];
        String n = "nvmlDeviceGetPcieReplayCounter";
        return present(n, NvmlNative.nvmlDeviceGetPcieReplayCounter(begin(n), v)) ? unsigned(v[0]) : null;
    }

    @Override
    public Long performanceState() throws GpuCallException {
        if (!calls.onWorker()) {
            return batch(this::performanceState);
        }
        int[] v = new int[1];
        String n = "nvmlDeviceGetPerformanceState";
        if (!present(n, NvmlNative.nvmlDeviceGetPerformanceState(begin(n), v))) {
            return null;
        }
        return v[0] < 0 || v[0] == NvmlNative.PSTATE_UNKNOWN ? null : unsigned(v[0]);
    }

    @Override
    public Long gpuUtilization() throws GpuCallException {
        if (!calls.onWorker()) {
            return batch(this::gpuUtilization);
        }
        int[] v = new int[2];
        String n = "nvmlDeviceGetUtilizationRates";
        return present(n, NvmlNative.nvmlDeviceGetUtilizationRates(begin(n), v)) ? unsigned(v[0]) : null;
    }

    @Override
    public Boolean linkActive(int link) throws GpuCallException {
        if (!calls.onWorker()) {
            return batch(() -> linkActive(link));
        }
        int[] v = new int[1];
        String n = "nvmlDeviceGetNvLinkState";
        int rc = NvmlNative.nvmlDeviceGetNvLinkState(begin(n), link, v);
        // Past the GPU's last link NVML says NOT_SUPPORTED or INVALID_ARGUMENT: no such link.
        return present(n, rc == NvmlReturn.INVALID_ARGUMENT ? NvmlReturn.NOT_SUPPORTED : rc) ? v[0] != 0 : null;
    }

    @Override
    public Long linkErrors(int link, LinkCounter counter) throws GpuCallException {
        if (!calls.onWorker()) {
            return batch(() -> linkErrors(link, counter));
        }
        long[] v = new long[1];
        String n = "nvmlDeviceGetNvLinkErrorCounter";
        return present(n, NvmlNative.nvmlDeviceGetNvLinkErrorCounter(begin(n), link, counter.ordinal(), v)) ? count(v) : null;
    }

    @Override
    public Long temperature() throws GpuCallException {
        if (!calls.onWorker()) {
            return batch(this::temperature);
        }
        int[] v = new int[1];
        String n = "nvmlDeviceGetTemperature";
        return present(n, NvmlNative.nvmlDeviceGetTemperature(begin(n), 0, v)) ? unsigned(v[0]) : null;
    }

    @Override
    public Long memoryTemperature() throws GpuCallException {
        if (!calls.onWorker()) {
            return batch(this::memoryTemperature);
        }
        ByteBuffer values = ByteBuffer.allocate(NvmlNative.FIELD_VALUE_SIZE).order(ByteOrder.nativeOrder());
        values.putInt(0, NvmlNative.FIELD_MEMORY_TEMP);
        byte[] raw = values.array();
        String n = "nvmlDeviceGetFieldValues";
        if (!present(n, NvmlNative.nvmlDeviceGetFieldValues(begin(n), 1, raw))) {
            return null;
        }
        ByteBuffer out = ByteBuffer.wrap(raw).order(ByteOrder.nativeOrder());
        if (!present(n + "(MEMORY_TEMP)", out.getInt(NvmlNative.FIELD_VALUE_RETURN_OFFSET))) {
            return null;
        }
        // NVML reports this field as an unsigned int (value type 1): the low 32 bits of the value
        return unsigned(out.getInt(NvmlNative.FIELD_VALUE_VALUE_OFFSET));
    }

    @Override
    public Long temperatureThreshold(TemperatureThreshold threshold) throws GpuCallException {
        if (!calls.onWorker()) {
            return batch(() -> temperatureThreshold(threshold));
        }
        int[] v = new int[1];
        String n = "nvmlDeviceGetTemperatureThreshold";
        return present(n, NvmlNative.nvmlDeviceGetTemperatureThreshold(begin(n), threshold.ordinal(), v)) ? unsigned(v[0]) : null;
    }

    @Override
    public Throttle throttle() throws GpuCallException {
        if (!calls.onWorker()) {
            return batch(this::throttle);
        }
        long[] v = new long[1];
        String n = "nvmlDeviceGetCurrentClocksEventReasons";
        return present(n, NvmlNative.nvmlDeviceGetCurrentClocksEventReasons(begin(n), v)) ? NvmlClockEvents.throttle(count(v)) : null;
    }

    @Override
    public Long powerUsageMilliwatts() throws GpuCallException {
        if (!calls.onWorker()) {
            return batch(this::powerUsageMilliwatts);
        }
        int[] v = new int[1];
        String n = "nvmlDeviceGetPowerUsage";
        return present(n, NvmlNative.nvmlDeviceGetPowerUsage(begin(n), v)) ? unsigned(v[0]) : null;
    }

    @Override
    public Long enforcedPowerLimitMilliwatts() throws GpuCallException {
        if (!calls.onWorker()) {
            return batch(this::enforcedPowerLimitMilliwatts);
        }
        int[] v = new int[1];
        String n = "nvmlDeviceGetEnforcedPowerLimit";
        return present(n, NvmlNative.nvmlDeviceGetEnforcedPowerLimit(begin(n), v)) ? unsigned(v[0]) : null;
    }

    @Override
    public GpuFabric fabric() throws GpuCallException {
        if (!calls.onWorker()) {
            return batch(this::fabric);
        }
        Function versioned = NvmlFabricCalls.infoV();
        if (versioned != null) {
            String n = NvmlFabricCalls.INFO_V;
            byte[] info = NvmlFabricCalls.versioned(NvmlFabricCalls.V3_VERSION);
            int rc = NvmlFabricCalls.call(versioned, begin(n), info);
            if (rc == NvmlReturn.ARGUMENT_VERSION_MISMATCH) {
                calls.end();      // a driver that knows only v2 of the struct
                info = NvmlFabricCalls.versioned(NvmlFabricCalls.V2_VERSION);
                rc = NvmlFabricCalls.call(versioned, begin(n), info);
            }
            return present(n, absentIfNotFound(rc)) ? fabric(NvmlFabricCalls.decodeVersioned(info)) : null;
        }
        Function original = NvmlFabricCalls.info();
        if (original == null) {
            return null;        // a driver before fabric information
        }
        String n = NvmlFabricCalls.INFO;
        byte[] info = new byte[NvmlFabricCalls.V1_SIZE];
        return present(n, absentIfNotFound(NvmlFabricCalls.call(original, begin(n), info))) ? fabric(NvmlFabricCalls.decodeV1(info)) : null;
    }

    private static int absentIfNotFound(int rc) {
        return rc == NvmlReturn.FUNCTION_NOT_FOUND ? NvmlReturn.NOT_SUPPORTED : rc;
    }

    private static GpuFabric fabric(NvmlFabricCalls.Raw raw) {
        return raw.decode(raw.status() == NvmlReturn.SUCCESS ? NvmlReturn.name(raw.status()) : NvmlSession.describe(raw.status()));
    }
}
