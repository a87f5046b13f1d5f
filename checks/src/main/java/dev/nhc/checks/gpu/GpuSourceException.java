package dev.nhc.checks.gpu;

/** No GPU can be read at all: the library is missing, the driver is not loaded, init hung. The message says which and what to do. */
public final class GpuSourceException extends Exception {
    private static final long serialVersionUID = 1L;

    public GpuSourceException(String message) {
        super(message);
    }
}
