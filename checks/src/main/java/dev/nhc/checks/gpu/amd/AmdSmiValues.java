package dev.nhc.checks.gpu.amd;

import dev.nhc.checks.gpu.PciBusId;

import java.util.Map;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The values of amd-smi's and rocm-smi's JSON that nhc judges, read strictly: a number (or
 * amd-smi's {@code {"value": …, "unit": …}} with the unit expected) or {@code N/A}, which is absent
 * as AMD SMI's NOT_SUPPORTED is; anything else is a problem naming the GPU and the key.
 */
final class AmdSmiValues {
    static final String NOT_AVAILABLE = "N/A";
    private static final Pattern GEN = Pattern.compile("(?i)gen\\s*(\\d)");
    private static final Pattern NUMBER = Pattern.compile("-?[0-9]+(?:\\.[0-9]+)?");

    private final Consumer<String> problems;

    AmdSmiValues(Consumer<String> problems) {
        this.problems = problems;
    }

    /** A section of a GPU's entry (an object), or null when absent or N/A. */
    Map<?, ?> section(Map<?, ?> m, String key, String at) {
        Object v = m.get(key);
        if (v == null || NOT_AVAILABLE.equals(v)) {
            return null;
        }
        if (v instanceof Map<?, ?> s) {
            return s;
        }
        problems.accept(at + ": " + key + " is " + shorten(String.valueOf(v)) + ", expected an object or N/A");
        return null;
    }

    /**
     * A number: a JSON number, a numeric string (rocm-smi's "53.0"), or amd-smi's {"value": …, "unit": …};
     * null for N/A or absent. {@code unit}, when given, is the one unit accepted.
     */
    Long number(Object v, String at, String key, String unit) {
        if (v instanceof Map<?, ?> vu && vu.containsKey("value")) {
            Object u = vu.get("unit");
            if (unit != null && u != null && !unit.equals(u) && !NOT_AVAILABLE.equals(vu.get("value"))) {
                problems.accept(at + ": " + key + " is in " + u + ", expected " + unit);
                return null;
            }
            v = vu.get("value");
        }
        if (v == null || NOT_AVAILABLE.equals(v)) {
            return null;
        }
        if (v instanceof Number n) {
            return Math.round(n.doubleValue());
        }
        if (v instanceof String s && NUMBER.matcher(s.strip()).matches()) {
            return Math.round(Double.parseDouble(s.strip()));
        }
        problems.accept(at + ": " + key + " is " + shorten(String.valueOf(v)) + ", expected a number or N/A");
        return null;
    }

    Long celsius(Object v, String at, String key) {
        return number(v, at, key, "C");
    }

    /** Watts as milliwatts (amd-smi shows W; the library's microwatts are converted by amd-smi). */
    Long milliwatts(Object v, String at, String key) {
        if (v instanceof Map<?, ?> vu && "mW".equals(vu.get("unit"))) {
            return number(vu.get("value"), at, key, null);
        }
        Long w = number(v, at, key, "W");
        return w == null ? null : w * 1000;
    }

    /** A link speed ({"value": 32, "unit": "GT/s"}, or "32 GT/s") as a PCIe generation. */
    Long speedToGen(Object v, String at, String key) {
        if (v instanceof String s && s.endsWith("GT/s")) {
            v = s.replace("GT/s", "").strip();
        }
        if (v instanceof Map<?, ?> vu && vu.get("value") instanceof Number n && "GT/s".equals(vu.get("unit"))) {
            return gtToGen(n.doubleValue());
        }
        Long gts = number(v, at, key, "GT/s");
        return gts == null ? null : gtToGen(gts);
    }

    static Long gtToGen(double gigaTransfers) {
        return AmdSmiStructs.generation(Math.round(gigaTransfers * 1000));
    }

    static Long gen(String version) {
        Matcher m = GEN.matcher(version);
        return m.find() ? Long.valueOf(m.group(1)) : null;
    }

    static String pci(String bdf) {
        return NOT_AVAILABLE.equals(bdf) ? null : PciBusId.normalize(bdf);
    }

    static String text(Object v) {
        return v == null || NOT_AVAILABLE.equals(v) || String.valueOf(v).isBlank() ? null : String.valueOf(v).strip();
    }

    static Long positive(Long v) {
        return v == null || v <= 0 ? null : v;
    }

    static <K> void putIfKnown(Map<K, Long> m, K key, Long value) {
        if (value != null) {
            m.put(key, value);
        }
    }

    static String shorten(String s) {
        return s.length() <= 60 ? s : s.substring(0, 57) + "...";
    }
}
