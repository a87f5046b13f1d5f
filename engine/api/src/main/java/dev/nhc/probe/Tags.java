package dev.nhc.probe;

/**
 * The words probes declare themselves with ({@link ProbeSpec#tags()}), after gpud's component
 * {@code Tags()}: the engine and the integrations decide by these what a check is about — which
 * checks an NVML event re-runs, which captures a replay feeds to which checks, which DCGM health
 * system a finding belongs to — and never by a probe's name. A site probe uses the same words.
 */
public final class Tags {
    /** About the GPUs: an XID event re-runs it. (Whether a hang means a sick GPU is the spec's {@code timeoutFails}, not a tag.) */
    public static final String GPU = "gpu";
    /** Reads NVML (or, in a replay, an {@code nvidia-smi -q} capture). */
    public static final String NVML = "nvml";
    /** Reads the kernel log (in a replay, a captured kernel log). */
    public static final String KERNEL_LOG = "kernel-log";
    /** Reads DCGM through dcgmi (in a replay, captured dcgmi output). */
    public static final String DCGM = "dcgm";
    /** InfiniBand/RoCE ports (in a replay, {@code ibstat} output). */
    public static final String INFINIBAND = "infiniband";
    /** The NVSwitch fabric (in a replay, a fabric manager log). */
    public static final String FABRIC = "fabric";
    public static final String NETWORK = "network";
    public static final String HOST = "host";
    public static final String STORAGE = "storage";
    /** Runs site code (an executable or JavaScript). */
    public static final String SCRIPT = "script";

    // DCGM's health systems, so a finding lands in the category dstack already shows for DCGM's own.
    public static final String PCIE = "pcie";
    public static final String NVLINK = "nvlink";
    public static final String MEMORY = "memory";
    public static final String THERMAL = "thermal";
    public static final String POWER = "power";
    public static final String DRIVER = "driver";
    public static final String INFOROM = "inforom";
    public static final String NVSWITCH = "nvswitch";

    private Tags() {
    }
}
