package dev.nhc.checks.gpu.calls;

import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;

/**
 * The threads GPU library calls run on. A call that blocks (a lost GPU does that) blocks one of
 * these daemon threads, never the probe's: the probe waits with a timeout and walks away, and the
 * JVM can still exit because the thread is a daemon.
 */
public final class CallThreads {
    /** How long one library call may take before its GPU is declared not responding, whichever vendor's library it is. */
    public static final Duration CALL_LIMIT = Duration.ofSeconds(5);

    private CallThreads() {
    }

    /** One thread that runs the calls of one GPU (or the session's system calls) in order. */
    public static ExecutorService singleThread(String name) {
        return Executors.newSingleThreadExecutor(daemon(name));
    }

    public static ThreadFactory daemon(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }

    /** "5s", "1.5s", "800ms": how long a call was given, for "blocked > 5s". */
    public static String format(Duration d) {
        long ms = d.toMillis();
        if (ms < 1000) {
            return ms + "ms";
        }
        if (ms % 1000 == 0) {
            return (ms / 1000) + "s";
        }
        return String.format(Locale.ROOT, "%.1fs", ms / 1000.0);
    }
}
