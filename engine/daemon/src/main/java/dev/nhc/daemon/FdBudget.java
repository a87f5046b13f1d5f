package dev.nhc.daemon;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * How many connections a listener may hold, from the file descriptors this process may open
 * ({@code Max open files} in /proc/self/limits; the unit sets 8192, an interactive shell often
 * 1024): so that clients can never take the descriptors that state writes and the kernel log need
 * ("Too many open files" there would miss a fatal XID).
 */
public final class FdBudget {
    /** Kept for everything but connections: state files, logs, NVML, the checks' processes. */
    static final int RESERVED = 256;
    private static final long MAX_FDS = readMaxFds(Path.of("/proc/self/limits"));

    private FdBudget() {
    }

    /** {@code wanted}, or {@code share} of the descriptors beyond the reserve when that is less (at least 8). */
    public static int connections(int wanted, double share) {
        return of(wanted, share, MAX_FDS);
    }

    static int of(int wanted, double share, long maxFds) {
        long room = (long) ((maxFds - RESERVED) * share);
        return (int) Math.max(8, Math.min(wanted, room));
    }

    static long readMaxFds(Path limits) {
        try {
            for (String line : Files.readAllLines(limits)) {
                if (line.startsWith("Max open files")) {
                    String[] f = line.substring("Max open files".length()).trim().split("\\s+");
                    return f[0].equals("unlimited") ? Integer.MAX_VALUE : Long.parseLong(f[0]);
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux, or unreadable: the common default
        }
        return 1024;
    }
}
