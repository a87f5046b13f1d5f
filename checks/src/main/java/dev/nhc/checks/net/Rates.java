package dev.nhc.checks.net;

/**
 * A port's rate as sysfs writes it ("400 Gb/sec (4X NDR)", "2.5 Gb/sec (1X SDR)") or ibstat prints
 * it ("400", "2.5", "40 (FDR10)"): the number in Gb/s and what is in the parentheses.
 */
final class Rates {
    private Rates() {
    }

    /** The leading number in Gb/s, or null when the text does not start with one. */
    static Double gbps(String text) {
        if (text == null) {
            return null;
        }
        String t = text.strip();
        int end = 0;
        while (end < t.length() && (Character.isDigit(t.charAt(end)) || t.charAt(end) == '.')) {
            end++;
        }
        if (end == 0 || (end < t.length() && t.charAt(end) != ' ')) {
            return null;
        }
        try {
            return Double.parseDouble(t.substring(0, end));
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** "4X NDR" from "400 Gb/sec (4X NDR)", or null when there are no parentheses. */
    static String speed(String text) {
        if (text == null) {
            return null;
        }
        int open = text.indexOf('(');
        int close = text.lastIndexOf(')');
        if (open < 0 || close < open + 2) {
            return null;
        }
        return text.substring(open + 1, close).strip();
    }

    /** 400.0 → "400", 2.5 → "2.5", for messages. */
    static String show(double gbps) {
        return gbps == Math.rint(gbps) ? Long.toString((long) gbps) : Double.toString(gbps);
    }
}
