package dev.nhc.checks.gpu.amd;

import dev.nhc.checks.gpu.GpuCallException;
import dev.nhc.checks.gpu.GpuCallException.Kind;
import dev.nhc.checks.gpu.calls.GpuCalls;

/**
 * One GPU of an AMD SMI session: its processor handle, its calls on their own thread
 * ({@link GpuCalls}: the per-call deadline, a hung call named), and what AMD SMI's status codes
 * mean for a value.
 */
final class AmdSmiGpu {
    private static final String BDF = "amdsmi_get_gpu_device_bdf";

    private final GpuCalls calls;
    /** The GPU's PCI device was on the bus when a probe looked: from then on its going is a lost GPU, not an address nhc never saw. */
    private volatile boolean seenOnBus;

    AmdSmiGpu(int index, long handle) {
        this.calls = new GpuCalls("amdsmi-gpu-" + index, index, "AMD SMI", BDF, c -> open(c, handle));
    }

    GpuCalls calls() {
        return calls;
    }

    /**
     * Whether the GPU's PCI device vanished from the bus ({@code pciDevices}, sysfs) since a probe
     * first saw it there: a GPU that fell off the bus while this session holds its handle.
     */
    boolean goneFromBus(java.nio.file.Path pciDevices) {
        String bus = calls.pciBusId();
        if (bus == null || !java.nio.file.Files.isDirectory(pciDevices)) {
            return false;
        }
        boolean there = java.nio.file.Files.exists(pciDevices.resolve(bus));
        if (there) {
            seenOnBus = true;
        }
        return seenOnBus && !there;
    }

    /** The handle is the session's; opening reads the GPU's PCI address, which names it in every message. */
    private GpuCalls.Opened open(GpuCalls c, long handle) throws GpuCallException {
        long[] bdf = new long[1];
        int rc = c.traced(BDF, () -> AmdSmiNative.amdsmi_get_gpu_device_bdf(handle, bdf));
        if (rc == AmdSmiStatus.SUCCESS) {
            return new GpuCalls.Opened(handle, AmdSmiStructs.bdf(bdf[0]));
        }
        check(c, rc, BDF, true);
        return new GpuCalls.Opened(handle, null);
    }

    /**
     * Turns a status into a value decision: true for SUCCESS, false for NOT_SUPPORTED (the field is
     * absent) when {@code notSupportedIsAbsent}, an exception otherwise.
     */
    boolean check(int rc, String name, boolean notSupportedIsAbsent) throws GpuCallException {
        return check(calls, rc, name, notSupportedIsAbsent);
    }

    /** The same while opening, when the constructor may not have finished: the GPU's calls are {@code c}. */
    private static boolean check(GpuCalls c, int rc, String name, boolean notSupportedIsAbsent) throws GpuCallException {
        if (rc == AmdSmiStatus.SUCCESS) {
            return true;
        }
        if (AmdSmiStatus.absent(rc) && notSupportedIsAbsent) {
            return false;
        }
        String what = name + " returned " + AmdSmiSession.describe(rc);
        if (AmdSmiStatus.gpuLost(rc)) {
            throw new GpuCallException(Kind.LOST, name, c.label() + " is lost: " + what
                    + " (AMD SMI no longer finds the device); see dmesg for amdgpu errors");
        }
        throw new GpuCallException(Kind.ERROR, name, c.label() + ": " + what);
    }

    void close() {
        calls.close();
    }
}
