package dev.nhc.rules;

import dev.nhc.engine.config.ConfigNode;
import dev.nhc.engine.config.Problems;
import dev.nhc.probe.FieldSpec;
import dev.nhc.units.Dimension;
import dev.nhc.units.Quantity;
import dev.nhc.units.Unit;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Reads one condition ({@code "> 95"}, {@code ">= 10GiB"}, {@code true}, {@code "~ fail(ed)?"})
 * against the field it is about. Every mistake becomes a problem at the condition's own
 * file:line:column; nothing is guessed, because a threshold nhc silently misreads is a node that
 * is drained, or not, for no reason.
 */
final class ConditionParser {
    private static final Pattern OPERATOR = Pattern.compile("^([<>=!~]*)\\s*(.*)$", Pattern.DOTALL);
    private static final String NUMERIC_OPS = ">, >=, <, <=, == or !=";
    private static final String TEXT_OPS = "a plain value, '== x', '!= x', '~ regex' or '!~ regex'";

    private ConditionParser() {
    }

    /** The compiled condition, or null after adding a problem. {@code where} prefixes messages, e.g. "check 'root-fs' fail: used_percent". */
    static Condition parse(FieldSpec field, ConfigNode node, String where, Problems problems) {
        if (node.isNull()) {
            problems.add(node.location(), where + ": the condition is empty; write e.g. " + example(field.unit()));
            return null;
        }
        if (!node.isScalar()) {
            problems.add(node.location(), where + ": a condition is a single value such as " + example(field.unit()) + ", not " + node.describeKind());
            return null;
        }
        Object value = node.value();
        String text = node.text().trim();
        Unit unit = field.unit();
        if (value instanceof Boolean b) {
            return switch (unit.dimension()) {
                case BOOLEAN -> new Condition.Equals(field, false, b);
                case TEXT -> new Condition.Equals(field, false, text);
                default -> problem(node, where, "field " + field.name() + " is " + unitPhrase(unit) + "; '" + text + "' is not a number", problems);
            };
        }
        if (value instanceof Number) {
            // A bare YAML number means equality: count: 8.
            return switch (unit.dimension()) {
                case TEXT -> new Condition.Equals(field, false, text);
                case BOOLEAN -> problem(node, where, "field " + field.name() + " is true or false; '" + text + "' is neither", problems);
                default -> numeric(field, Operator.EQ, text, node, where, problems);
            };
        }
        Matcher m = OPERATOR.matcher(text);
        m.matches();
        String symbol = m.group(1);
        String rest = m.group(2).trim();
        Operator op;
        if (symbol.isEmpty()) {
            op = Operator.EQ;
            rest = text;
        } else {
            op = Operator.bySymbol(symbol);
            if (op == null) {
                return problem(node, where, "unknown operator '" + symbol + "' in '" + text + "'" + operatorHint(symbol)
                        + " (use " + NUMERIC_OPS + "; ~ and !~ for text)", problems);
            }
            if (rest.isEmpty()) {
                return problem(node, where, "'" + symbol + "' needs a value, e.g. " + example(unit), problems);
            }
        }
        return switch (unit.dimension()) {
            case BOOLEAN -> bool(field, op, rest, text, node, where, problems);
            case TEXT -> text(field, op, rest, text, node, where, problems);
            default -> {
                if (op.isPattern()) {
                    yield problem(node, where, "'" + op.symbol + "' matches text, but field " + field.name() + " is "
                            + unitPhrase(unit) + "; use " + NUMERIC_OPS, problems);
                }
                yield numeric(field, op, rest, node, where, problems);
            }
        };
    }

    private static Condition numeric(FieldSpec field, Operator op, String number, ConfigNode node, String where, Problems problems) {
        Unit unit = field.unit();
        Quantity q;
        try {
            q = Quantity.parse(number);
        } catch (IllegalArgumentException e) {
            return problem(node, where, "field " + field.name() + " is " + unitPhrase(unit) + "; '" + number + "' is not: " + e.getMessage(), problems);
        }
        if (!q.fits(unit)) {
            return problem(node, where, "field " + field.name() + " is " + unitPhrase(unit) + "; '" + number + "' is not (that is "
                    + dimensionName(q.dimension()) + ")", problems);
        }
        double threshold = q.in(unit);
        if (!Double.isFinite(threshold)) {
            // 1e309 is Infinity in a double: "> 1e309%" would be a rule that can never fire, accepted without a word.
            return problem(node, where, "'" + number + "' is too large a number to compare with (at most about 1.7e308)", problems);
        }
        return new Condition.Numeric(field, op, tidy(threshold));
    }

    private static Condition bool(FieldSpec field, Operator op, String rest, String text, ConfigNode node, String where, Problems problems) {
        if (op != Operator.EQ && op != Operator.NE) {
            return problem(node, where, "field " + field.name() + " is true or false; '" + op.symbol + "' does not apply (write true, false, '== true' or '!= true')", problems);
        }
        Boolean b = switch (rest.toLowerCase(Locale.ROOT)) {
            case "true", "yes", "on" -> Boolean.TRUE;
            case "false", "no", "off" -> Boolean.FALSE;
            default -> null;
        };
        if (b == null) {
            return problem(node, where, "field " + field.name() + " is true or false; '" + text + "' is neither", problems);
        }
        return new Condition.Equals(field, op == Operator.NE, b);
    }

    private static Condition text(FieldSpec field, Operator op, String rest, String text, ConfigNode node, String where, Problems problems) {
        if (op.isOrdering()) {
            return problem(node, where, "field " + field.name() + " is text; '" + op.symbol + "' compares numbers (write " + TEXT_OPS + ")", problems);
        }
        if (op.isPattern()) {
            try {
                return new Condition.Matches(field, op == Operator.NOT_MATCH, Pattern.compile(rest));
            } catch (PatternSyntaxException e) {
                return problem(node, where, "bad regular expression '" + rest + "': " + e.getDescription()
                        + (e.getIndex() >= 0 ? " at character " + (e.getIndex() + 1) : ""), problems);
            }
        }
        return new Condition.Equals(field, op == Operator.NE, rest);
    }

    private static Condition problem(ConfigNode node, String where, String message, Problems problems) {
        problems.add(node.location(), where + ": " + message);
        return null;
    }

    private static String operatorHint(String symbol) {
        return switch (symbol) {
            case "=" -> " (did you mean '=='?)";
            case "=>" -> " (did you mean '>='?)";
            case "=<" -> " (did you mean '<='?)";
            case "<>", "!" -> " (did you mean '!='?)";
            case "=~" -> " (did you mean '~'?)";
            default -> "";
        };
    }

    /**
     * Unit conversion leaves tails such as 5.000000000000001 for "5/min"; 12 significant digits
     * are more than any threshold has, and make "== 5/min" mean exactly 5 per minute.
     */
    private static double tidy(double v) {
        if (v == 0 || Double.isInfinite(v) || Double.isNaN(v)) {
            return v;
        }
        return new BigDecimal(v).round(new MathContext(12)).doubleValue();
    }

    static String unitPhrase(Unit unit) {
        return switch (unit) {
            case PERCENT -> "in %";
            case BYTES -> "in bytes (B, KiB, MiB, GiB, TiB, or KB, MB, GB, TB)";
            case SECONDS -> "a duration (ms, s, m, h, d)";
            case CELSIUS -> "in °C (C)";
            case WATTS -> "in watts (W, mW)";
            case PER_SECOND, PER_MINUTE, PER_HOUR -> "a rate in " + unit.symbol() + " (/s, /min, /h)";
            case COUNT -> "a plain number (no unit)";
            case BOOLEAN -> "true or false";
            case TEXT -> "text";
        };
    }

    private static String dimensionName(Dimension d) {
        return switch (d) {
            case PERCENT -> "a percentage";
            case BYTES -> "a size";
            case DURATION -> "a duration";
            case TEMPERATURE -> "a temperature";
            case POWER -> "a power";
            case RATE -> "a rate";
            default -> d.name().toLowerCase(Locale.ROOT);
        };
    }

    static String example(Unit unit) {
        return switch (unit) {
            case PERCENT -> "\"> 95\" or \"> 99.9%\"";
            case BYTES -> "\"< 10GiB\"";
            case SECONDS -> "\"> 30s\"";
            case CELSIUS -> "\"> 90C\"";
            case WATTS -> "\"> 300W\"";
            case PER_SECOND, PER_MINUTE, PER_HOUR -> "\"> 5" + unit.symbol() + "\"";
            case COUNT -> "\"> 0\"";
            case BOOLEAN -> "true or false";
            case TEXT -> "\"failed\" or \"~ fail(ed)?\"";
        };
    }
}
