package dev.nhc.checks.gpu.capture;

import dev.nhc.checks.gpu.capture.SmiQTree.Node;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The values of {@code nvidia-smi -q} that nhc judges, read strictly: a value that does not parse,
 * or that is NVML's error in place of a value, is a problem with its line, never a guess; one
 * shown as absent ({@link SmiQValues#absent}) is null, as NVML's NOT_SUPPORTED is.
 */
final class SmiQReadings {
    private static final Pattern NUMBER = Pattern.compile("^(-?[0-9]+(?:\\.[0-9]+)?)\\s*(C|W|x|MiB|%|MHz|mV|KB/s|bank\\(s\\))?$");
    private static final Pattern PSTATE = Pattern.compile("^P([0-9]|1[0-5])$");

    private final SmiQTree.Problems problems;

    SmiQReadings(SmiQTree.Problems problems) {
        this.problems = problems;
    }

    Long number(Node n) {
        Double d = decimal(n);
        return d == null ? null : Math.round(d);
    }

    Double decimal(Node n) {
        if (n == null) {
            return null;
        }
        if (n.value == null) {
            problems.problem(n.line, "expected '" + n.key + " : <value>', found a section title");
            return null;
        }
        if (unreadable(n) || SmiQValues.absent(n.value)) {
            return null;
        }
        Matcher m = NUMBER.matcher(n.value.strip());
        if (!m.matches()) {
            problems.problem(n.line, "expected a number for '" + n.key + "', found '" + SmiQValues.shorten(n.value) + "'");
            return null;
        }
        return Double.parseDouble(m.group(1));
    }

    Boolean flag(Node n) {
        if (n == null || n.value == null || unreadable(n) || SmiQValues.absent(n.value)) {
            return null;
        }
        Boolean b = SmiQValues.flag(n.value);
        if (b == null) {
            problems.problem(n.line, "expected Yes/No, Enabled/Disabled or Active/Not Active for '" + n.key + "', found '"
                    + SmiQValues.shorten(n.value) + "'");
        }
        return b;
    }

    /** "P8" is 8; N/A or Unknown is absent; anything else is not what nvidia-smi prints. */
    Long performanceState(Node n) {
        String v = SmiQValues.text(n);
        if (v == null || v.equalsIgnoreCase("Unknown")) {
            return null;
        }
        Matcher m = PSTATE.matcher(v);
        if (!m.matches()) {
            problems.problem(n.line, "expected a performance state P0 to P15 for '" + n.key + "', found '" + SmiQValues.shorten(v) + "'");
            return null;
        }
        return Long.parseLong(m.group(1));
    }

    /** nvidia-smi prints NVML's error for a value it could not read ("Unknown Error", "GPU requires reset"): not absent, unknown. */
    private boolean unreadable(Node n) {
        String why = SmiQValues.error(n.value);
        if (why != null) {
            problems.problem(n.line, "'" + n.key + "' reads '" + why + "': nvidia-smi could not read it");
            return true;
        }
        return false;
    }
}
