package dev.nhc.rules;

import dev.nhc.probe.FieldSpec;
import dev.nhc.text.BoundedRegex;
import dev.nhc.units.Unit;

import java.util.regex.Pattern;

/**
 * One compiled {@code field: "op value"} test. Thresholds are converted to the field's own unit
 * once, at load time, so evaluation is a plain comparison.
 */
sealed interface Condition {

    FieldSpec field();

    /** Judges a reported value (never null: absent fields are undecided before this is called). */
    Truth test(Object value);

    /** What the condition found, for automatic messages: {@code used_percent 97.2% > 95%}. */
    String describe(Object value);

    /** The test without the field, its threshold in the field's unit: {@code > 98%}, {@code false}, {@code != 'active'}. */
    String written();

    /** Whether a reported value is of a kind this condition can judge (a number for a numeric test). */
    default boolean accepts(Object value) {
        return true;
    }

    /** {@code >, >=, <, <=, ==, !=} over a number, with the threshold already in the field's unit. */
    record Numeric(FieldSpec field, Operator op, double threshold) implements Condition {
        @Override
        public Truth test(Object value) {
            if (value instanceof Long l && threshold == Math.rint(threshold) && Math.abs(threshold) < 9.0e15) {
                // Exact for counters past 2^53 (ECC totals, byte counts), where doubles would round.
                return Truth.of(op.compare(Long.compare(l, (long) threshold)));
            }
            if (value instanceof Number n) {
                double d = n.doubleValue();
                return Double.isNaN(d) ? Truth.NO : Truth.of(op.compare(Double.compare(d, threshold)));
            }
            // A probe that reports text for a numeric field: nothing to compare, like an absent value.
            return Truth.UNDECIDED;
        }

        @Override
        public boolean accepts(Object value) {
            return value instanceof Number;
        }

        @Override
        public String describe(Object value) {
            Unit u = field.unit();
            return field.name() + " " + u.format(value) + " " + op.symbol + " " + u.format(threshold);
        }

        @Override
        public String written() {
            return op.symbol + " " + field.unit().format(threshold);
        }
    }

    /** Equality with a boolean or a text ({@code active: true}, {@code state: failed}, {@code "!= active"}). */
    record Equals(FieldSpec field, boolean negate, Object expected) implements Condition {
        @Override
        public Truth test(Object value) {
            boolean same = expected instanceof Boolean b
                    ? (value instanceof Boolean v ? v.equals(b) : String.valueOf(value).equalsIgnoreCase(b.toString()))
                    : expected.equals(String.valueOf(value));
            return Truth.of(same != negate);
        }

        @Override
        public String describe(Object value) {
            String shown = show(value);
            return negate ? field.name() + " is " + shown + ", not " + show(expected) : field.name() + " is " + shown;
        }

        @Override
        public String written() {
            if (expected instanceof Boolean b) {
                return String.valueOf(negate != b);
            }
            return (negate ? "!= " : "== ") + show(expected);
        }
    }

    /**
     * {@code ~ regex} / {@code !~ regex} over a text field; a search, as awk's and Perl's {@code ~}, not a whole-string match.
     * Text fields carry what users shaped (log lines, process and file names): a regex that gives up on one decides nothing.
     */
    record Matches(FieldSpec field, boolean negate, Pattern pattern) implements Condition {
        @Override
        public Truth test(Object value) {
            BoundedRegex.Result r = BoundedRegex.find(pattern, String.valueOf(value));
            return r == BoundedRegex.Result.GAVE_UP ? Truth.UNDECIDED : Truth.of(r.matched() != negate);
        }

        @Override
        public String describe(Object value) {
            return field.name() + " " + show(value) + (negate ? " does not match /" : " matches /") + pattern.pattern() + "/";
        }

        @Override
        public String written() {
            return (negate ? "!~ /" : "~ /") + pattern.pattern() + "/";
        }
    }

    private static String show(Object value) {
        return value instanceof String s ? "'" + s + "'" : String.valueOf(value);
    }
}
