package dev.nhc.units;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A number with an optional unit as written in a config: {@code 30s}, {@code 5m}, {@code 10GiB},
 * {@code 85%}, {@code 99.9%}, {@code 90C}, {@code 300W}, {@code 5/min}. The value is kept in the
 * dimension's base unit (bytes, seconds, per second, …); {@code dimension == null} means the
 * number was written bare and takes the unit of whatever it is compared with.
 */
public record Quantity(double base, Dimension dimension, String text) {

    private static final Pattern FORM = Pattern.compile("^([-+]?(?:\\d+\\.?\\d*|\\.\\d+)(?:[eE][-+]?\\d+)?)\\s*([A-Za-z%/]*(?:/[A-Za-z]+)?)$");

    public static Quantity parse(String text) {
        String t = text.trim();
        Matcher m = FORM.matcher(t);
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + text + "' is not a number with an optional unit (e.g. 95, 85%, 10GiB, 30s, 90C, 5/min)");
        }
        double v = Double.parseDouble(m.group(1));
        String u = m.group(2);
        if (u.isEmpty()) {
            return new Quantity(v, null, t);
        }
        Scale s = scaleOf(u);
        if (s == null) {
            throw new IllegalArgumentException("unknown unit '" + u + "' in '" + text + "' (known: %, B, KB, KiB, MB, MiB, GB, GiB, TB, TiB, ms, s, m, min, h, d, C, W, /s, /min, /h)");
        }
        return new Quantity(v * s.factor, s.dimension, t);
    }

    /** The value in the given unit; the caller has checked that the dimensions agree. */
    public double in(Unit unit) {
        return dimension == null ? base : unit.fromBase(base);
    }

    public boolean fits(Unit unit) {
        return dimension == null ? unit.isNumeric() : dimension == unit.dimension();
    }

    private record Scale(Dimension dimension, double factor) {
    }

    private static Scale scaleOf(String unit) {
        switch (unit) {
            case "%": return new Scale(Dimension.PERCENT, 1);
            case "C": return new Scale(Dimension.TEMPERATURE, 1);
            case "W": return new Scale(Dimension.POWER, 1);
            case "mW": return new Scale(Dimension.POWER, 0.001);
            case "ms": return new Scale(Dimension.DURATION, 0.001);
            case "s": return new Scale(Dimension.DURATION, 1);
            case "m": case "min": return new Scale(Dimension.DURATION, 60);
            case "h": return new Scale(Dimension.DURATION, 3600);
            case "d": return new Scale(Dimension.DURATION, 86400);
            case "/s": return new Scale(Dimension.RATE, 1);
            case "/min": return new Scale(Dimension.RATE, 1.0 / 60);
            case "/h": return new Scale(Dimension.RATE, 1.0 / 3600);
            default: break;
        }
        Double bytes = BYTE_UNITS.get(unit);
        return bytes == null ? null : new Scale(Dimension.BYTES, bytes);
    }

    /** SI prefixes with B are decimal, IEC ones binary; a bare K/M/G/T (LBNL NHC's "10G") means binary, as admins mean it. */
    private static final java.util.Map<String, Double> BYTE_UNITS = byteUnits();

    private static java.util.Map<String, Double> byteUnits() {
        java.util.Map<String, Double> m = new java.util.HashMap<>();
        m.put("B", 1.0);
        String[] prefixes = {"K", "M", "G", "T", "P"};
        for (int i = 0; i < prefixes.length; i++) {
            String p = prefixes[i];
            double bin = Math.pow(1024, i + 1);
            m.put(p, bin);
            m.put(p + "iB", bin);
            m.put(p + "B", Math.pow(1000, i + 1));
        }
        m.put("kB", 1000.0);
        return m;
    }

    /** Parses a duration such as {@code 30s}, {@code 5m}, {@code 6h} or a bare number of seconds. */
    public static java.time.Duration parseDuration(String text) {
        Quantity q = parse(text);
        if (q.dimension != null && q.dimension != Dimension.DURATION) {
            throw new IllegalArgumentException("'" + text + "' is not a duration (e.g. 500ms, 30s, 5m, 6h)");
        }
        if (q.base < 0) {
            throw new IllegalArgumentException("'" + text + "' is negative; a duration must be positive");
        }
        return java.time.Duration.ofNanos(Math.round(q.base * 1e9));
    }

    /** Parses a size such as {@code 10GiB} or a bare number of bytes. */
    public static long parseBytes(String text) {
        Quantity q = parse(text);
        if (q.dimension != null && q.dimension != Dimension.BYTES) {
            throw new IllegalArgumentException("'" + text + "' is not a size (e.g. 512MiB, 10GiB, 1TB)");
        }
        return Math.round(q.base);
    }

    /**
     * Four significant digits without trailing zeros and never in exponent form: 97.25, 0.0003125,
     * 12350. BigDecimal rather than String.format: a cold JVM spends ~7 ms setting up Formatter.
     */
    public static String formatNumber(double v) {
        if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            return Long.toString((long) v);
        }
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            return Double.toString(v);
        }
        // valueOf goes through Double.toString, so 97.245 rounds up as written, not as stored (97.24499...)
        return BigDecimal.valueOf(v).round(new MathContext(4, RoundingMode.HALF_UP)).stripTrailingZeros().toPlainString();
    }

    public static String formatBytes(double bytes) {
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
        int i = 0;
        double v = bytes;
        while (Math.abs(v) >= 1024 && i < units.length - 1) {
            v /= 1024;
            i++;
        }
        return (i == 0 ? formatNumber(v) : BigDecimal.valueOf(v).setScale(1, RoundingMode.HALF_UP).toPlainString()) + " " + units[i];
    }
}
