package dev.nhc.checks.gpu;

/**
 * No GPU of one vendor can be read at all: the library is missing, the driver is not loaded,
 * opening the library hung. The message says which and what to do; a hang also names the call
 * that blocked, because a hung driver is a sick node, not one nhc cannot judge.
 *
 * <p>Some of these failures are also what a host without that vendor's GPUs looks like (the
 * library not installed, the driver not loaded): {@link #absence()} says which, and
 * {@link GpuSources} asks the PCI bus before it calls the vendor absent rather than broken.
 */
public final class GpuSourceException extends Exception {
    private static final long serialVersionUID = 1L;

    /** What, besides a fault, this failure may mean. */
    public enum Absence {
        /** Nothing but a fault: the library is there and said something is wrong. */
        NONE,
        /** The library is not installed under its usual name: a host without this vendor's GPUs, unless the PCI bus shows some. */
        NOT_INSTALLED,
        /** The vendor's kernel driver is not loaded: a host without this vendor's GPUs only if the PCI bus shows none. */
        DRIVER_NOT_LOADED
    }

    private final String blockedCall;
    private final Absence absence;
    private final String absentReason;

    public GpuSourceException(String message) {
        this(message, null, Absence.NONE, null);
    }

    private GpuSourceException(String message, String blockedCall, Absence absence, String absentReason) {
        super(message);
        this.blockedCall = blockedCall;
        this.absence = absence;
        this.absentReason = absentReason;
    }

    /** Opening the library did not return: {@code call} is the function that blocked. */
    public static GpuSourceException hung(String call, String message) {
        return new GpuSourceException(message, call, Absence.NONE, null);
    }

    /**
     * A failure that a host without this vendor's GPUs also shows.
     *
     * @param faultMessage  what to say when the vendor's GPUs are here after all ("install the NVIDIA driver…")
     * @param absentReason  what to say when they are not ("libnvidia-ml.so.1 is not installed")
     */
    public static GpuSourceException maybeAbsent(Absence absence, String faultMessage, String absentReason) {
        return new GpuSourceException(faultMessage, null, absence, absentReason);
    }

    /** Why the vendor is taken to be absent, in a few words; the message when there is nothing shorter. */
    public String absentReason() {
        return absentReason != null ? absentReason : getMessage();
    }

    /** The function that blocked while opening, or null when opening failed otherwise. */
    public String blockedCall() {
        return blockedCall;
    }

    public Absence absence() {
        return absence;
    }
}
