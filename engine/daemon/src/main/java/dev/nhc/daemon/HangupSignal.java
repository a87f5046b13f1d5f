package dev.nhc.daemon;

import java.util.function.Consumer;

/** SIGHUP reloads the daemon's config. SIGTERM and SIGINT take the JVM's normal path, which runs the shutdown hook. */
final class HangupSignal {
    private HangupSignal() {
    }

    @SuppressWarnings("removal")
    static void reloads(Runnable reload, Consumer<String> log) {
        try {
            sun.misc.Signal hup = new sun.misc.Signal("HUP");
            if (sun.misc.Signal.handle(hup, sig -> reload.run()) == sun.misc.SignalHandler.SIG_IGN) {
                // The JVM installs nothing over an inherited "ignore": say so rather than ignore reloads silently.
                log.accept("SIGHUP is ignored in this process (started under nohup?): reload by restarting");
            }
        } catch (IllegalArgumentException | UnsupportedOperationException e) {
            log.accept("cannot handle SIGHUP here (" + e.getMessage() + "); reload by restarting");
        }
    }
}
