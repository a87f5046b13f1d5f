package dev.nhc.daemon;

import java.io.PrintStream;

/**
 * Ends {@code nhc daemon} when a part it cannot serve without has died: an endpoint's loop that
 * stopped, or any thread killed by an exception nothing caught. A live process with a dead endpoint
 * looks healthy to systemd and serves nobody; an exit (status {@link #EXIT}) is restarted by the
 * unit's {@code Restart=always}. An OutOfMemoryError never gets here: the launcher runs the daemon
 * with {@code -XX:+ExitOnOutOfMemoryError}, as a heap that ran out once leaves nothing trustworthy.
 */
public final class ProcessEnd {
    /** nhc's own error (the contract's exit 3). */
    static final int EXIT = dev.nhc.engine.policy.ExitCodes.INTERNAL;
    /** How long the shutdown hook (listeners closed, run lock released) may take before the JVM is halted. */
    private static final long HALT_AFTER_MS = 10_000;

    private ProcessEnd() {
    }

    /** From now on a thread that dies of an uncaught exception ends the process. */
    static void onUncaughtException(PrintStream log) {
        Thread.setDefaultUncaughtExceptionHandler((t, e) ->
                exit(log, "thread " + t.getName() + " died of " + e));
    }

    /** Says why, then exits; halts if the clean exit does not end the process in time. */
    static void exit(PrintStream log, String why) {
        log.println("nhc daemon: " + why + "; exiting (status " + EXIT + ") so that it is restarted");
        log.flush();
        Thread halt = new Thread(() -> {
            try {
                Thread.sleep(HALT_AFTER_MS);
            } catch (InterruptedException ignored) {
                // halting now
            }
            Runtime.getRuntime().halt(EXIT);
        }, "nhc-halt");
        halt.setDaemon(true);
        halt.start();
        // From a thread of its own: System.exit waits for the shutdown hook, which may wait for the caller.
        Thread exit = new Thread(() -> System.exit(EXIT), "nhc-exit");
        exit.setDaemon(true);
        exit.start();
    }
}
