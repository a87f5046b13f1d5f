package dev.nhc.checks.gpu.amd;

import dev.nhc.checks.gpu.calls.CallThreads;
import dev.nhc.checks.gpu.calls.LibrarySessions;

/** The AMD SMI sessions of this process, one per library path ({@link LibrarySessions}). */
public final class AmdSmiSessions {
    private static final LibrarySessions<AmdSmiSession> SESSIONS =
            new LibrarySessions<>(library -> new AmdSmiSession(library, CallThreads.CALL_LIMIT));

    private AmdSmiSessions() {
    }

    /** The session for {@code configuredLibrary} ({@code gpu.amd_smi_library}; null for the system's libamd_smi.so). */
    public static AmdSmiSession get(String configuredLibrary) {
        return SESSIONS.get(configuredLibrary);
    }

    /** Shuts down every session; the next probe initialises AMD SMI afresh (tests switch fake scenarios this way). */
    public static void closeAll() {
        SESSIONS.closeAll();
    }
}
