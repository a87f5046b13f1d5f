package dev.nhc.probe;

import dev.nhc.model.Observation;

import java.util.List;
import java.util.Map;

/** What the checks that ran before a {@code runsLast} probe observed, by check name; offered through {@link ProbeContext#service}. */
public interface PriorObservations {
    Map<String, List<Observation>> byCheck();
}
