package dev.nhc.checks.gpu;

import java.util.Locale;
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
        return String.format(Locale.ROOT, domain > 0xffff ? "%08x:%02x:%02x.%d" : "%04x:%02x:%02x.%d", domain, bus, device, function);
    }
}
