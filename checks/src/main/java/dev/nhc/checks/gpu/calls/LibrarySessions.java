package dev.nhc.checks.gpu.calls;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The sessions of one GPU library in this process, one per library path, created when the first
 * GPU probe runs (so a host-only config never loads JNA or the library). A session whose opening
 * failed is replaced on the next request, so a daemon recovers once the driver is back; one still
 * opening (possibly hung in its init) is shared rather than piled onto.
 */
public final class LibrarySessions<S extends LibrarySessions.Session> {

    /** What the cache needs of a session. */
    public interface Session {
        /** Whether opening failed for good; false while it is still running. */
        boolean failed();

        /** Best effort, bounded: shuts the library down and stops the session's threads. */
        void close();
    }

    private final Map<String, S> sessions = new ConcurrentHashMap<>();
    private final Function<String, S> open;

    /** @param open opens a session for a configured library (null: the system's default) */
    public LibrarySessions(Function<String, S> open) {
        this.open = open;
    }

    public S get(String configuredLibrary) {
        String key = configuredLibrary == null ? "" : configuredLibrary;
        return sessions.compute(key, (k, existing) -> existing != null && !existing.failed() ? existing : open.apply(configuredLibrary));
    }

    /** Shuts down every session; the next probe opens the library afresh (tests switch fake scenarios this way). */
    public void closeAll() {
        for (String key : sessions.keySet()) {
            S s = sessions.remove(key);
            if (s != null) {
                s.close();
            }
        }
    }
}
