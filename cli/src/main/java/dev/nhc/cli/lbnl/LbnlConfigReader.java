package dev.nhc.cli.lbnl;

import java.util.ArrayList;
import java.util.List;

/**
 * Splits an LBNL NHC config into {@link LbnlLine}s the way {@code nhc_load_conf} does: bash's
 * {@code read LINE} without {@code -r} drops each backslash and keeps the character after it, a
 * backslash at the end of a line joins the next one, and blanks around the whole are trimmed; the
 * match is what precedes the first {@code ||}, the check what follows it.
 */
public final class LbnlConfigReader {
    private LbnlConfigReader() {
    }

    public static List<LbnlLine> read(String content) {
        List<LbnlLine> out = new ArrayList<>();
        String[] physical = content.split("\n", -1);
        int count = content.endsWith("\n") ? physical.length - 1 : physical.length;
        int i = 0;
        while (i < count) {
            int start = i;
            StringBuilder processed = new StringBuilder();
            StringBuilder raw = new StringBuilder();
            boolean joined;
            do {
                String line = stripCr(physical[i]);
                raw.append(raw.length() == 0 ? "" : "\n").append(line);
                joined = unescape(line, processed);
                i++;
            } while (joined && i < count);
            String logical = trimBlanks(processed.toString());
            int sep = logical.indexOf("||");
            String target = sep < 0 ? logical : trimBlanks(logical.substring(0, sep));
            String check = sep < 0 ? logical : trimBlanks(logical.substring(sep + 2));
            out.add(new LbnlLine(start + 1, raw.toString(), target, check, sep >= 0));
        }
        return out;
    }

    /** Appends the line with read's backslash processing; true when a final backslash continues it. */
    private static boolean unescape(String line, StringBuilder out) {
        for (int k = 0; k < line.length(); k++) {
            char c = line.charAt(k);
            if (c == '\\') {
                if (k + 1 == line.length()) {
                    return true;
                }
                out.append(line.charAt(++k));
            } else {
                out.append(c);
            }
        }
        return false;
    }

    private static String stripCr(String s) {
        return s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
    }

    /** read's default IFS whitespace (space, tab) around the line, as nhc_load_conf trims it. */
    static String trimBlanks(String s) {
        int a = 0;
        int b = s.length();
        while (a < b && (s.charAt(a) == ' ' || s.charAt(a) == '\t')) {
            a++;
        }
        while (b > a && (s.charAt(b - 1) == ' ' || s.charAt(b - 1) == '\t')) {
            b--;
        }
        return s.substring(a, b);
    }
}
