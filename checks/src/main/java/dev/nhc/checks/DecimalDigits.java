package dev.nhc.checks;

/** Text that is a plain decimal number: /proc pids, sysfs port numbers and counters. */
public final class DecimalDigits {
    private DecimalDigits() {
    }

    /** True when {@code s} is not empty and every character is a digit (no sign, no spaces). */
    public static boolean only(String s) {
        if (s.isEmpty()) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            if (!Character.isDigit(s.charAt(i))) {
                return false;
            }
        }
        return true;
    }
}
