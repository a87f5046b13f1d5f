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
     * Why what this check remembered was lost (no generation of its state could be read, the newest
     * that could is older than one known written, or it is missing while it should be there), or
     * null when it was read fine. It stays set, run after run, until {@code nhc clear}
     * forgets the check's state: a check that latches faults reports UNKNOWN meanwhile, since a
     * fault it had latched may be forgotten.
     */
    default String lostBecause() {
        return null;
    }

    /**
     * Why nhc holds the node out of service right now (its Slurm record says nhc drained or failed
     * it, or its last verdict failed), or null. A check that latches faults and lost them fails
     * while the node is held, so that a lost latch never lets the node back in.
     */
    default String heldBecause() {
        return null;
    }
}
