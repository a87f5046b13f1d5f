package dev.nhc.checks.gpu;

/**
 * No GPU can be read at all: the library is missing, the driver is not loaded, opening NVML hung.
 * The message says which and what to do; a hang also names the call that blocked, because a hung
 * driver is a sick node, not one nhc cannot judge.
 */
public final class GpuSourceException extends Exception {
    private static final long serialVersionUID = 1L;

    private final String blockedCall;

    public GpuSourceException(String message) {
        this(message, null);
    }

    private GpuSourceException(String message, String blockedCall) {
        super(message);
        this.blockedCall = blockedCall;
    }

    /** Opening NVML did not return: {@code call} is the function that blocked. */
    public static GpuSourceException hung(String call, String message) {
        return new GpuSourceException(message, call);
    }

    /** The NVML function that blocked while opening, or null when opening failed otherwise. */
    public String blockedCall() {
        return blockedCall;
    }
}
