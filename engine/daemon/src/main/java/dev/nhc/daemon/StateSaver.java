package dev.nhc.daemon;

import dev.nhc.engine.state.StateStore;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Saves sections of the daemon's state store as results come in, the sections named only: the
 * whole store would also save the sections of probes still running, half-changed (a cursor moved,
 * its latch not yet set). A full disk must not take the verdict away: a failure is counted, said
 * once until it changes, and shown as a problem until a write works again.
 */
final class StateSaver {
    private final StateStore store;
    private final Consumer<String> log;
    private final AtomicLong errors = new AtomicLong();
    private volatile String problem;

    StateSaver(StateStore store, Consumer<String> log) {
        this.store = store;
        this.log = log;
    }

    void save(List<String> sections) {
        try {
            store.flush(sections);
            if (problem != null) {
                log.accept("writing state to " + store.dir() + " works again");
            }
            problem = null;
        } catch (IOException | RuntimeException e) {
            errors.incrementAndGet();
            String p = "cannot write state to " + store.dir() + ": " + e.getMessage() + " (still serving the latest verdict from memory)";
            if (!p.equals(problem)) {
                log.accept(p);
            }
            problem = p;
        }
    }

    /** Why the last write failed, or null. */
    String problem() {
        return problem;
    }

    long errors() {
        return errors.get();
    }
}
