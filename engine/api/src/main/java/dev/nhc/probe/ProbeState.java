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
}
