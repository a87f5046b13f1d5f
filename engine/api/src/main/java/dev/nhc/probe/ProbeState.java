package dev.nhc.probe;

import java.util.Map;

/**
 * What a check remembers between runs (counters for rates, a log cursor, latched events): plain
 * values only (String, Long, Double, Boolean, List, Map), saved atomically by the engine after
 * the probe returns. Values read back may have been written by an older nhc or edited by hand:
 * a probe validates what it reads before using it.
 */
public interface ProbeState {

    String name();

    Object get(String key);

    long getLong(String key, long fallback);

    String getString(String key);

    /** A null value removes the key. */
    void put(String key, Object value);

    void remove(String key);

    void clear();

    Map<String, Object> snapshot();

    /**
     * Why what this check remembered was lost (its state file and the generation before could not
     * be read), or null when it was read fine. It stays set, run after run, until {@code nhc clear}
     * forgets the check's state: a check that latches faults reports UNKNOWN meanwhile, since a
     * fault it had latched may be forgotten.
     */
    default String lostBecause() {
        return null;
    }
}
