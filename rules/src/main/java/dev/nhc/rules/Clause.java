package dev.nhc.rules;

import dev.nhc.model.Observation;
import dev.nhc.probe.FieldSpec;

import java.util.List;

/** One map of conditions, all of which must hold. */
record Clause(List<Condition> conditions) {

    Clause {
        conditions = List.copyOf(conditions);
    }

    /**
     * NO as soon as one condition is false (a missing field cannot change that); else MISSING when
     * a field the probe declares for this entity is absent or not a value of its unit; else
     * UNDECIDED when an optional field was not reported; else YES.
     */
    Truth test(Observation observation) {
        boolean undecided = false;
        boolean missing = false;
        for (Condition c : conditions) {
            Object v = observation.get(c.field().name());
            Truth t;
            if (v == null) {
                t = c.field().requiredIn(observation) ? Truth.MISSING : Truth.UNDECIDED;
            } else {
                t = c.accepts(v) ? c.test(v) : Truth.MISSING;
            }
            if (t == Truth.NO) {
                return Truth.NO;
            }
            missing |= t == Truth.MISSING;
            undecided |= t == Truth.UNDECIDED;
        }
        return missing ? Truth.MISSING : undecided ? Truth.UNDECIDED : Truth.YES;
    }

    /** Why this clause is MISSING: "field used_percent not reported for /scratch". */
    String missing(Observation observation) {
        String of = observation.entity().label();
        for (Condition c : conditions) {
            FieldSpec f = c.field();
            Object v = observation.get(f.name());
            if (v == null && f.requiredIn(observation)) {
                return "field " + f.name() + " not reported for " + of;
            }
            if (v != null && !c.accepts(v)) {
                return "field " + f.name() + " of " + of + " is " + (v instanceof String s ? "'" + s + "'" : v) + ", not a number";
            }
        }
        return "a field not reported for " + of;
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

    /** The clause as written, its thresholds in their units: "used_percent > 98%, mounted false". */
    String written() {
        StringBuilder sb = new StringBuilder();
        for (Condition c : conditions) {
            if (sb.length() > 0) {
                sb.append(", ");
            }
            sb.append(c.field().name()).append(' ').append(c.written());
        }
        return sb.toString();
    }
}
