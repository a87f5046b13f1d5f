package dev.nhc.checks.host;

import java.util.BitSet;

/** The kernel's CPU list format ({@code 0-3,8-11}, {@code 5}, empty), as in /sys/devices/system/cpu/online. */
final class CpuList {
    private CpuList() {
    }

    static BitSet parse(String text) {
        BitSet cpus = new BitSet();
        String t = text.trim();
        if (t.isEmpty()) {
            return cpus;
        }
        for (String part : t.split(",")) {
            int dash = part.indexOf('-');
            try {
                if (dash < 0) {
                    cpus.set(Integer.parseInt(part.trim()));
                } else {
                    int from = Integer.parseInt(part.substring(0, dash).trim());
                    int to = Integer.parseInt(part.substring(dash + 1).trim());
                    if (to < from) {
                        throw new IllegalArgumentException("'" + text.trim() + "' is not a CPU list (range " + part + " runs backwards)");
                    }
                    cpus.set(from, to + 1);
                }
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + text.trim() + "' is not a CPU list like 0-3,8-11", e);
            }
        }
        return cpus;
    }
}
