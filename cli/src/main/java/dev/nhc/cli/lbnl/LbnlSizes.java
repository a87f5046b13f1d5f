package dev.nhc.cli.lbnl;

/**
 * LBNL NHC's size and count arguments ({@code nhc_common_parse_size}, {@code nhc_common_parse_count})
 * and their nhc threshold forms. A size is kB unless suffixed: {@code k}, {@code M}, {@code G},
 * {@code T}, {@code P}, {@code E} (any case, optional trailing {@code b}/{@code B}) are powers of 1024
 * of kB, so {@code 32gb} is 32 GiB. A count suffix is a power of 1000. Only whole numbers are
 * taken: bash arithmetic rejects anything else, and the check then does not do what it says.
 */
public final class LbnlSizes {
    private static final String SUFFIXES = "kmgtpe";

    private LbnlSizes() {
    }

    /** The size in kB, or null when bash would not compute it (not a whole number, overflow). */
    public static Long kib(String text) {
        if (text == null) {
            return null;
        }
        String v = text.endsWith("b") || text.endsWith("B") ? text.substring(0, text.length() - 1) : text;
        return scaled(v, 1024, true);
    }

    /** The count, or null when bash would not compute it. */
    public static Long count(String text) {
        return text == null ? null : scaled(text, 1000, false);
    }

    private static Long scaled(String v, long mult, boolean kIsUnit) {
        if (v.isEmpty()) {
            return null;
        }
        int power = 0;
        char last = Character.toLowerCase(v.charAt(v.length() - 1));
        int at = SUFFIXES.indexOf(last);
        if (at >= 0) {
            v = v.substring(0, v.length() - 1);
            power = kIsUnit ? at : at + 1;
        }
        if (!v.matches("[0-9]{1,15}")) {
            return null;
        }
        long n = Long.parseLong(v);
        try {
            for (int i = 0; i < power; i++) {
                n = Math.multiplyExact(n, mult);
            }
            return n;
        } catch (ArithmeticException e) {
            return null;
        }
    }

    /** Whole percent such as {@code 5%}, or null. */
    public static Integer percent(String text) {
        if (text == null || !text.matches("[0-9]{1,3}%")) {
            return null;
        }
        return Integer.parseInt(text.substring(0, text.length() - 1));
    }

    /** A kB amount as an nhc quantity in the largest binary unit that keeps it exact. */
    public static String quantity(long kib) {
        if (kib != 0 && kib % (1024L * 1024 * 1024) == 0) {
            return kib / (1024L * 1024 * 1024) + "TiB";
        }
        if (kib != 0 && kib % (1024L * 1024) == 0) {
            return kib / (1024L * 1024) + "GiB";
        }
        if (kib != 0 && kib % 1024 == 0) {
            return kib / 1024 + "MiB";
        }
        return kib + "KiB";
    }
}
