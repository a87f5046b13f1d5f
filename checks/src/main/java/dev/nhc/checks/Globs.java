package dev.nhc.checks;

import java.util.List;
import java.util.regex.Pattern;

/** The {@code devices:} globs as the loader compiled them, shown as written for messages. */
public final class Globs {
    private Globs() {
    }

    /**
     * The glob a pattern was compiled from: the loader quotes literal characters ({@code \Q…\E}) and
     * turns {@code *} into {@code .*}, {@code ?} into {@code .} and {@code [!…]} into {@code [^…]}.
     */
    public static String show(Pattern p) {
        String re = p.pattern();
        StringBuilder out = new StringBuilder();
        int i = 0;
        while (i < re.length()) {
            if (re.startsWith("\\Q", i)) {
                int end = re.indexOf("\\E", i + 2);
                end = end < 0 ? re.length() : end;
                out.append(re, i + 2, end);
                i = end + 2;
            } else if (re.startsWith(".*", i)) {
                out.append('*');
                i += 2;
            } else if (re.charAt(i) == '.') {
                out.append('?');
                i++;
            } else if (re.startsWith("[^", i)) {
                out.append("[!");
                i += 2;
            } else if (re.charAt(i) == '\\' && i + 1 < re.length()) {
                out.append(re.charAt(i + 1));
                i += 2;
            } else {
                out.append(re.charAt(i));
                i++;
            }
        }
        return out.toString();
    }

    public static String show(List<Pattern> globs) {
        StringBuilder b = new StringBuilder();
        for (Pattern g : globs) {
            b.append(b.length() == 0 ? "" : ", ").append(show(g));
        }
        return b.toString();
    }
}
