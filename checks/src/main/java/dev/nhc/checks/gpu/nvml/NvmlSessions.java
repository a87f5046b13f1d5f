package dev.nhc.checks.gpu.nvml;

import dev.nhc.checks.gpu.calls.CallThreads;
import dev.nhc.checks.gpu.calls.LibrarySessions;

/** The NVML sessions of this process, one per library path ({@link LibrarySessions}). */
public final class NvmlSessions {
    private static final LibrarySessions<NvmlSession> SESSIONS =
            new LibrarySessions<>(library -> new NvmlSession(library, CallThreads.CALL_LIMIT));

    private NvmlSessions() {
    }

    /** The session for {@code configuredLibrary} ({@code settings.nvml_library}; null for the system's libnvidia-ml.so.1). */
    public static NvmlSession get(String configuredLibrary) {
        return SESSIONS.get(configuredLibrary);
    }

    /** Shuts down every session; the next probe initialises NVML afresh (tests switch fake scenarios this way). */
    public static void closeAll() {
        SESSIONS.closeAll();
    }
}
