package dev.nhc.checks.gpu.nvml;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The NVML sessions of this process, one per library path, created when the first GPU probe runs
 * (so a host-only config never loads JNA or NVML). A session whose opening failed is replaced on
 * the next request, so a daemon recovers once the driver is back; one still opening (possibly
 * hung in nvmlInit_v2) is shared rather than piled onto.
 */
public final class NvmlSessions {
    /** How long one NVML call may take before its GPU is declared not responding. */
    public static final Duration CALL_LIMIT = Duration.ofSeconds(5);

    private static final Map<String, NvmlSession> SESSIONS = new ConcurrentHashMap<>();

    private NvmlSessions() {
    }

    /** The session for {@code configuredLibrary} ({@code settings.nvml_library}; null for the system's libnvidia-ml.so.1). */
    public static NvmlSession get(String configuredLibrary) {
        String key = configuredLibrary == null ? "" : configuredLibrary;
        return SESSIONS.compute(key, (k, existing) ->
                existing != null && !existing.failed() ? existing : new NvmlSession(configuredLibrary, CALL_LIMIT));
    }

    /** Shuts down every session; the next probe initialises NVML afresh (tests switch fake scenarios this way). */
    public static void closeAll() {
        for (String key : SESSIONS.keySet()) {
            NvmlSession s = SESSIONS.remove(key);
            if (s != null) {
                s.close();
            }
        }
    }
}
