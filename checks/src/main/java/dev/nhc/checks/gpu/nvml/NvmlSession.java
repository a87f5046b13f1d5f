package dev.nhc.checks.gpu.nvml;

import com.sun.jna.Native;
import dev.nhc.checks.gpu.GpuSourceException;
import dev.nhc.checks.gpu.GpuSourceException.Absence;
import dev.nhc.checks.gpu.calls.LibraryOpening;
import dev.nhc.checks.gpu.calls.LibraryOpening.Failure;
import dev.nhc.checks.gpu.calls.LibrarySession;
import dev.nhc.checks.gpu.calls.LoadFailure;
import dev.nhc.engine.files.IoReason;
import dev.nhc.engine.files.UntrustedPathException;

import java.io.IOException;
import java.time.Duration;
import java.util.List;

/**
 * One loaded and initialised NVML ({@link LibrarySession}): load, {@code nvmlInit_v2}, the GPU
 * count and the driver version, each a step whose hang is named; each GPU is an {@link NvmlGpu}.
 */
public final class NvmlSession extends LibrarySession<NvmlSession.Opened, NvmlGpu> {
    /** What {@code settings.nvml_library} defaults to: the runtime library the driver installs. */
    public static final String DEFAULT_LIBRARY = "libnvidia-ml.so.1";

    record Opened(String driverVersion, int count) {
    }

    NvmlSession(String configuredLibrary, Duration callLimit) {
        super("NVML", "nvml-system", configuredLibrary, DEFAULT_LIBRARY, "nvmlInit_v2", callLimit);
    }

    @Override
    protected Opened open(LibraryOpening<Opened> steps) {
        String library = library();
        steps.starting("loading " + library);
        try {
            NvmlNative.bind(library);
        } catch (UnsatisfiedLinkError | NoClassDefFoundError e) {
            // An Error, not an Exception: a node without the driver is an answer, not a crash.
            throw new Failure(missingLibrary(LoadFailure.firstReason(e)));
        } catch (UntrustedPathException e) {
            // Its constructors would run as root: nothing of it runs, and the GPU checks cannot tell.
            throw new Failure("refusing to load NVML from " + library + (fromSettings() ? " (settings.nvml_library)" : "")
                    + " as root: " + e.getMessage() + "; running as root, nhc loads only libraries that only root can change");
        } catch (IOException e) {
            throw new Failure(missingLibrary(IoReason.of(e)));
        } catch (IllegalStateException e) {
            throw new Failure(e.getMessage());
        }
        steps.starting("nvmlInit_v2");
        int rc = NvmlNative.nvmlInit_v2();
        if (rc != NvmlReturn.SUCCESS) {
            throw new Failure(initFailure(rc));
        }
        int[] count = new int[1];
        steps.starting("nvmlDeviceGetCount_v2");
        rc = NvmlNative.nvmlDeviceGetCount_v2(count);
        if (rc != NvmlReturn.SUCCESS) {
            throw new Failure(description() + " cannot count the GPUs: nvmlDeviceGetCount_v2 returned " + describe(rc));
        }
        byte[] version = new byte[96];
        steps.starting("nvmlSystemGetDriverVersion");
        rc = NvmlNative.nvmlSystemGetDriverVersion(version, version.length);
        String driver = rc == NvmlReturn.SUCCESS ? Native.toString(version) : null;
        return new Opened(driver, count[0]);
    }

    @Override
    protected void shutDownLibrary() {
        NvmlNative.nvmlShutdown();
    }

    @Override
    protected void closeGpu(NvmlGpu gpu) {
        gpu.close();
    }

    private GpuSourceException missingLibrary(String why) {
        if (fromSettings()) {
            return new GpuSourceException("cannot load NVML from " + library() + " (settings.nvml_library): " + why);
        }
        return GpuSourceException.maybeAbsent(Absence.NOT_INSTALLED, "NVML is not installed: " + library() + " could not be loaded (" + why
                + "); install the NVIDIA driver, or set settings.nvml_library to the library's path", description() + " is not installed");
    }

    private GpuSourceException initFailure(int rc) {
        String what = "nvmlInit_v2 returned " + describe(rc);
        if (rc == NvmlReturn.DRIVER_NOT_LOADED) {
            return GpuSourceException.maybeAbsent(Absence.DRIVER_NOT_LOADED, "the NVIDIA driver is not loaded (" + what
                    + "): check that the nvidia kernel module is loaded (lsmod | grep nvidia) and dmesg for NVRM errors",
                    "the NVIDIA driver is not loaded and the PCI bus shows no NVIDIA GPU");
        }
        return new GpuSourceException(switch (rc) {
            case NvmlReturn.LIB_RM_VERSION_MISMATCH -> "the NVML library and the loaded NVIDIA kernel module are different versions ("
                    + what + "): the driver was upgraded without reloading the module; reboot the node";
            case NvmlReturn.NO_PERMISSION -> "no permission to use the GPUs (" + what + "): nhc must run as root or with access to /dev/nvidia*";
            default -> "NVML failed to initialise (" + what + ")";
        });
    }

    static String describe(int rc) {
        String text;
        try {
            com.sun.jna.Pointer p = NvmlNative.nvmlErrorString(rc);
            text = p == null ? null : p.getString(0);
        } catch (RuntimeException | UnsatisfiedLinkError e) {
            text = null;
        }
        return NvmlReturn.name(rc) + (text == null || text.isBlank() ? "" : " (" + text + ")");
    }

    /** The session's GPUs, one per index the count gave. */
    List<NvmlGpu> gpus(Opened o) {
        return gpus(o.count(), NvmlGpu::new);
    }

    /** A view of this session for one probe, bounded by the probe's remaining time. */
    public NvmlSource view(Duration remaining) {
        start();
        return new NvmlSource(this, deadline(remaining));
    }
}
