package dev.nhc.checks.gpu.amd;

import com.sun.jna.Pointer;
import dev.nhc.checks.gpu.GpuSourceException;
import dev.nhc.checks.gpu.GpuSourceException.Absence;
import dev.nhc.checks.gpu.calls.LibraryOpening;
import dev.nhc.checks.gpu.calls.LibraryOpening.Failure;
import dev.nhc.checks.gpu.calls.LibrarySession;
import dev.nhc.checks.gpu.calls.LoadFailure;
import dev.nhc.engine.files.IoReason;
import dev.nhc.engine.files.UntrustedPathException;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * One loaded and initialised AMD SMI ({@link LibrarySession}): load, {@code amdsmi_init} for the
 * GPUs, the sockets and their processors (the GPUs, in the order {@code amd-smi} numbers them),
 * and the amdgpu driver's version, each a step whose hang is named; each GPU is an {@link AmdSmiGpu}.
 */
public final class AmdSmiSession extends LibrarySession<AmdSmiSession.Opened, AmdSmiGpu> {
    /** What {@code gpu.amd_smi_library} defaults to: the name ROCm's amd-smi-lib package registers with the loader. */
    public static final String DEFAULT_LIBRARY = "libamd_smi.so";

    /** The GPUs' processor handles, in amd-smi's order, and the driver version. */
    record Opened(String driverVersion, List<Long> handles) {
    }

    AmdSmiSession(String configuredLibrary, Duration callLimit) {
        super("AMD SMI", "amdsmi-system", configuredLibrary, DEFAULT_LIBRARY, "amdsmi_init", callLimit);
    }

    @Override
    protected Opened open(LibraryOpening<Opened> steps) {
        String library = library();
        steps.starting("loading " + library);
        try {
            AmdSmiNative.bind(library);
        } catch (UnsatisfiedLinkError | NoClassDefFoundError e) {
            throw new Failure(missingLibrary(LoadFailure.firstReason(e)));
        } catch (UntrustedPathException e) {
            // Its constructors would run as root: nothing of it runs, and the GPU checks cannot tell.
            throw new Failure("refusing to load AMD SMI from " + library + (fromSettings() ? " (gpu.amd_smi_library)" : "")
                    + " as root: " + e.getMessage() + "; running as root, nhc loads only libraries that only root can change");
        } catch (IOException e) {
            throw new Failure(missingLibrary(IoReason.of(e)));
        } catch (IllegalStateException e) {
            throw new Failure(e.getMessage());
        }
        steps.starting("amdsmi_init");
        int rc = AmdSmiNative.amdsmi_init(AmdSmiNative.INIT_AMD_GPUS);
        if (rc != AmdSmiStatus.SUCCESS) {
            throw new Failure(initFailure(rc));
        }
        steps.starting("amdsmi_get_socket_handles");
        List<Long> handles;
        try {
            handles = AmdSmiHandles.gpus(() -> steps.starting("amdsmi_get_processor_handles"));
        } catch (AmdSmiHandles.Refused e) {
            throw new Failure(description() + " cannot list the GPUs: " + e.call + " returned " + describe(e.status));
        }
        String driver = null;
        if (!handles.isEmpty()) {
            steps.starting("amdsmi_get_gpu_driver_info");
            byte[] info = new byte[AmdSmiStructs.DRIVER_INFO_SIZE];
            if (AmdSmiNative.amdsmi_get_gpu_driver_info(handles.get(0), info) == AmdSmiStatus.SUCCESS) {
                driver = AmdSmiStructs.text(info, 0, AmdSmiStructs.DRIVER_VERSION_LEN);
            }
        }
        return new Opened(driver, List.copyOf(handles));
    }

    @Override
    protected void shutDownLibrary() {
        AmdSmiNative.amdsmi_shut_down();
    }

    @Override
    protected void closeGpu(AmdSmiGpu gpu) {
        gpu.close();
    }

    private GpuSourceException missingLibrary(String why) {
        if (fromSettings()) {
            return new GpuSourceException("cannot load AMD SMI from " + library() + " (gpu.amd_smi_library): " + why);
        }
        return GpuSourceException.maybeAbsent(Absence.NOT_INSTALLED, "AMD SMI is not installed: " + library() + " could not be loaded ("
                + why + "); install ROCm's amd-smi-lib, or set gpu.amd_smi_library to the library's path", description() + " is not installed");
    }

    private GpuSourceException initFailure(int rc) {
        String what = "amdsmi_init returned " + describe(rc);
        if (rc == AmdSmiStatus.DRIVER_NOT_LOADED) {
            return GpuSourceException.maybeAbsent(Absence.DRIVER_NOT_LOADED, "the amdgpu driver is not loaded (" + what
                    + "): check that the amdgpu kernel module is loaded (lsmod | grep amdgpu) and dmesg for amdgpu errors",
                    "the amdgpu driver is not loaded and the PCI bus shows no AMD GPU");
        }
        return new GpuSourceException(switch (rc) {
            case AmdSmiStatus.NO_PERM -> "no permission to use the GPUs (" + what + "): nhc must run as root or with access to /dev/kfd and /dev/dri";
            default -> "AMD SMI failed to initialise (" + what + ")";
        });
    }

    /** "AMDSMI_STATUS_NO_PERM (Permission Denied)". */
    static String describe(int rc) {
        String text = null;
        try {
            long[] p = new long[1];
            if (AmdSmiNative.amdsmi_status_code_to_string(rc, p) == AmdSmiStatus.SUCCESS && p[0] != 0) {
                text = new Pointer(p[0]).getString(0);
            }
        } catch (RuntimeException | UnsatisfiedLinkError e) {
            text = null;
        }
        return AmdSmiStatus.name(rc) + (text == null || text.isBlank() ? "" : " (" + text + ")");
    }

    List<AmdSmiGpu> gpus(Opened o) {
        return gpus(o.handles().size(), i -> new AmdSmiGpu(i, o.handles().get(i)));
    }

    /**
     * A view of this session for one probe, bounded by the probe's remaining time; {@code pciDevices}
     * is the PCI bus in sysfs, where a GPU that fell off the bus is missed.
     */
    public AmdSmiSource view(Duration remaining, Path pciDevices) {
        start();
        return new AmdSmiSource(this, deadline(remaining), pciDevices);
    }
}
