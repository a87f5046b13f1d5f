package dev.nhc.engine.probe;

import dev.nhc.engine.model.Observation;

import java.util.List;
import java.util.Map;

/**
 * The observations other checks made in this run, by check name, for probes that judge across
 * checks (a {@code script.js} rule combining GPU temperature and power). The runner provides it
 * through {@link ProbeContext#service} and must run the checks that use it after all others have
 * finished, so that the map is complete and stable while they read it.
 */
public interface Observations {

    /** Check name → that check's observations, in config order; checks that produced none are absent. */
    Map<String, List<Observation>> byCheck();

    static Observations of(Map<String, List<Observation>> byCheck) {
        Map<String, List<Observation>> copy = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(byCheck));
        return () -> copy;
    }
}
