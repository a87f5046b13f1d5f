package dev.nhc.checks.gpu;

import java.util.List;

/**
 * Where the GPU probes read one vendor's GPUs from: its live library on this node (NVML, AMD SMI),
 * or a capture replayed by {@code nhc replay}. A replay puts its source into the probes' context
 * ({@code ProbeContext.service(GpuSource.class)}); without one the probes open the libraries.
 */
public interface GpuSource {

    GpuVendor vendor();

    /** For messages: "NVML (/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1)", "nvidia-smi -q capture ticket-1234.txt". */
    String description();

    /** Whether this source holds data of this kind; a live library holds all. */
    boolean provides(GpuData kind);

    /** The driver version, or null when not known. */
    String driverVersion() throws GpuSourceException;

    /**
     * The GPUs the driver reports, in index order. A GPU whose handle cannot be opened is still in
     * the list; its calls throw the error that opening it gave.
     */
    List<GpuDevice> devices() throws GpuSourceException;

    /**
     * What the source should hold of this kind and does not, each as an unreadable observation
     * naming what and where: the parts of a replayed capture that were cut off or could not be read.
     * Live NVML has none (what it cannot read, it says per call).
     */
    default List<dev.nhc.model.Observation> gaps(GpuData kind) {
        return List.of();
    }

    /** How many GPUs the source says there are when it shows fewer (a capture cut off after "Attached GPUs: 8"), else null. */
    default Integer announcedCount() {
        return null;
    }
}
