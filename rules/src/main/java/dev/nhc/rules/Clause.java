package dev.nhc.rules;

import dev.nhc.model.Observation;

import java.util.List;

/** One map of conditions, all of which must hold. */
record Clause(List<Condition> conditions) {

    Clause {
        conditions = List.copyOf(conditions);
    }

    /**
     * NO as soon as one condition is false (a missing field cannot change that); UNDECIDED when
     * the rest hold but a field was not reported.
     */
    Truth test(Observation observation) {
        boolean undecided = false;
        for (Condition c : conditions) {
            Object v = observation.get(c.field().name());
            Truth t = v == null ? Truth.UNDECIDED : c.test(v);
            if (t == Truth.NO) {
                return Truth.NO;
            }
            if (t == Truth.UNDECIDED) {
                undecided = true;
            }
        }
        return undecided ? Truth.UNDECIDED : Truth.YES;
    }

    /** "used_percent 97.2% > 95%, free_bytes 1.0 GiB < 2.0 GiB". */
    String describe(Observation observation) {
        StringBuilder sb = new StringBuilder();
        for (Condition c : conditions) {
            if (sb.length() > 0) {
                sb.append(", ");
            }
            sb.append(c.describe(observation.get(c.field().name())));
        }
        return sb.toString();
    }
}
