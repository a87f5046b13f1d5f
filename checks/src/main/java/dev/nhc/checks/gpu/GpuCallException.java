package dev.nhc.checks.gpu;

/**
 * One GPU call that failed. {@link Kind#LOST} and {@link Kind#HUNG} condemn the whole GPU (later
 * calls to it are skipped); {@link Kind#ERROR} only loses that value.
 */
public final class GpuCallException extends Exception {
    private static final long serialVersionUID = 1L;

    public enum Kind {
        /** GPU_IS_LOST or RESET_REQUIRED: the GPU is gone until a reset or reboot. */
        LOST,
        /** The call did not return within its deadline (a lost GPU does that). */
        HUNG,
        /** Any other error (no permission, corrupted infoROM…): this value is unknown. */
        ERROR
    }

    private final Kind kind;
    private final String call;

    public GpuCallException(Kind kind, String call, String message) {
        super(message);
        this.kind = kind;
        this.call = call;
    }

    public Kind kind() {
        return kind;
    }

    /** The NVML function that failed, e.g. {@code nvmlDeviceGetRemappedRows}. */
    public String call() {
        return call;
    }

    public boolean condemnsGpu() {
        return kind != Kind.ERROR;
    }
}
