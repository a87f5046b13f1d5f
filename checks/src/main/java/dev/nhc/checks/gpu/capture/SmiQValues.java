package dev.nhc.checks.gpu.capture;

import dev.nhc.checks.gpu.capture.SmiQTree.Node;

import java.util.Locale;

/** How nvidia-smi writes values: what means "this GPU has none", what is NVML's error, and its yes/no words. */
final class SmiQValues {

    private SmiQValues() {
    }

    /** N/A, [N/A], Not Supported, an empty value, a deprecated field: the GPU has no such value (NVML's NOT_SUPPORTED). */
    static boolean absent(String v) {
        if (v == null) {
            return true;
        }
        String s = v.strip();
        return s.isEmpty() || s.equalsIgnoreCase("N/A") || s.equalsIgnoreCase("[N/A]") || s.equalsIgnoreCase("Not Supported")
                || s.equalsIgnoreCase("[Not Supported]") || s.startsWith("Requested functionality");
    }

    /**
     * The NVML error nvidia-smi printed in place of a value ("Unknown Error", "[GPU requires reset]",
     * "Insufficient Permissions"), or null when the value is one: the value could not be read, which is
     * not the same as the GPU having none.
     */
    static String error(String v) {
        if (v == null) {
            return null;
        }
        String s = v.strip();
        String bare = s.startsWith("[") && s.endsWith("]") ? s.substring(1, s.length() - 1).strip() : s;
        String l = bare.toLowerCase(Locale.ROOT);
        if (l.equals("unknown error") || l.equals("gpu is lost") || l.equals("gpu requires reset") || l.equals("insufficient permissions")
                || l.equals("err!") || l.equals("error")) {
            return s;
        }
        return null;
    }

    /** The value as text, or null when absent or an error. */
    static String text(Node n) {
        return n == null || n.value == null || absent(n.value) || error(n.value) != null ? null : n.value.strip();
    }

    /** Yes/Enabled/Active is true, No/Disabled/Not Active false; null for any other word. */
    static Boolean flag(String v) {
        return switch (v.strip().toLowerCase(Locale.ROOT)) {
            case "yes", "enabled", "active", "on" -> Boolean.TRUE;
            case "no", "disabled", "not active", "off" -> Boolean.FALSE;
            default -> null;
        };
    }

    static String shorten(String s) {
        return s.length() > 60 ? s.substring(0, 60) + "…" : s;
    }
}
