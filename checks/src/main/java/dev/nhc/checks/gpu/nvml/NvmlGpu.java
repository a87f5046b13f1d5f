package dev.nhc.checks.gpu.nvml;

import com.sun.jna.Native;
import dev.nhc.checks.gpu.GpuCallException;
import dev.nhc.checks.gpu.GpuCallException.Kind;
import dev.nhc.checks.gpu.PciBusId;
import dev.nhc.checks.gpu.calls.GpuCalls;

import java.util.Arrays;

/**
 * One GPU of an NVML session: its calls on their own thread ({@link GpuCalls}: the per-call
 * deadline, a hung call named), and what NVML's return codes mean for a value.
 */
final class NvmlGpu {
    private static final String OPEN = "nvmlDeviceGetHandleByIndex_v2";

    private final GpuCalls calls;

    NvmlGpu(int index) {
        this.calls = new GpuCalls("nvml-gpu-" + index, index, "NVML", OPEN, this::open);
    }

    GpuCalls calls() {
        return calls;
    }

    private GpuCalls.Opened open(GpuCalls c) throws GpuCallException {
        long[] ref = new long[1];
        check(c, c.traced(OPEN, () -> NvmlNative.nvmlDeviceGetHandleByIndex_v2(c.index(), ref)), OPEN, false);
        long handle = ref[0];
        byte[] pci = new byte[NvmlNative.PCI_INFO_SIZE];
        int rc = c.traced("nvmlDeviceGetPciInfo_v3", () -> NvmlNative.nvmlDeviceGetPciInfo_v3(handle, pci));
        String bus = null;
        if (rc == NvmlReturn.SUCCESS) {
            bus = PciBusId.normalize(Native.toString(Arrays.copyOfRange(pci, NvmlNative.PCI_INFO_BUS_ID_OFFSET, pci.length)));
        } else if (rc != NvmlReturn.NOT_SUPPORTED) {
            check(c, rc, "nvmlDeviceGetPciInfo_v3", false);
        }
        return new GpuCalls.Opened(handle, bus);
    }

    /**
     * Turns a return code into a value decision: true for SUCCESS, false for NOT_SUPPORTED (the
     * field is absent) when {@code notSupportedIsAbsent}, an exception otherwise.
     */
    boolean check(int rc, String name, boolean notSupportedIsAbsent) throws GpuCallException {
        return check(calls, rc, name, notSupportedIsAbsent);
    }

    /** The same while opening, when the constructor may not have finished: the GPU's calls are {@code c}. */
    private static boolean check(GpuCalls c, int rc, String name, boolean notSupportedIsAbsent) throws GpuCallException {
        if (rc == NvmlReturn.SUCCESS) {
            return true;
        }
        if (rc == NvmlReturn.NOT_SUPPORTED && notSupportedIsAbsent) {
            return false;
        }
        String what = name + " returned " + NvmlSession.describe(rc);
        if (NvmlReturn.gpuLost(rc)) {
            throw new GpuCallException(Kind.LOST, name, c.label() + " is lost: " + what);
        }
        throw new GpuCallException(Kind.ERROR, name, c.label() + ": " + what);
    }

    void close() {
        calls.close();
    }
}
