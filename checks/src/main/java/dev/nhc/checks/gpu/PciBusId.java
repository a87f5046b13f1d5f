package dev.nhc.checks.gpu;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** PCI bus ids in one spelling: NVML says {@code 00000000:3B:00.0}, the kernel log {@code 0000:3b:00}, nhc {@code 0000:3b:00.0}. */
public final class PciBusId {
    private static final Pattern FORM = Pattern.compile("(?:([0-9a-fA-F]{1,8}):)?([0-9a-fA-F]{1,2}):([0-9a-fA-F]{1,2})(?:\\.([0-7]))?");

    private PciBusId() {
    }

    /** The short lower-case form, or the input trimmed when it is not a bus id. Null stays null. */
    public static String normalize(String busId) {
        if (busId == null) {
            return null;
        }
        String s = busId.trim();
        Matcher m = FORM.matcher(s);
        if (!m.matches()) {
            return s.isEmpty() ? null : s;
        }
        long domain = m.group(1) == null ? 0 : Long.parseLong(m.group(1), 16);
        int bus = Integer.parseInt(m.group(2), 16);
        int device = Integer.parseInt(m.group(3), 16);
        int function = m.group(4) == null ? 0 : Integer.parseInt(m.group(4));
        // By hand, not String.format: every GPU's first read goes through here, and Formatter's
        // set-up costs a cold run ~10 ms.
        return hex(domain, domain > 0xffff ? 8 : 4) + ':' + hex(bus, 2) + ':' + hex(device, 2) + '.' + function;
    }

    private static String hex(long value, int digits) {
        String h = Long.toHexString(value);
        return h.length() >= digits ? h : "0".repeat(digits - h.length()) + h;
    }
}
