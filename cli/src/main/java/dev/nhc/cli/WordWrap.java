package dev.nhc.cli;

import java.util.ArrayList;
import java.util.List;

/**
 * Breaks text into lines at spaces only. picocli breaks where java.text.BreakIterator allows,
 * which is also after a '.' or ':' inside a word: "settings." / "nvml_library", "127.0.0.1:" /
 * "9464", "(e." / "g.". A word longer than the width stays whole on a line of its own.
 */
final class WordWrap {
    private WordWrap() {
    }

    /** The lines of {@code text} as [start, end) ranges: the first at most {@code first} wide, the others at most {@code rest}. */
    static List<int[]> ranges(String text, int first, int rest) {
        List<int[]> lines = new ArrayList<>();
        int n = text.length();
        int i = 0;
        boolean firstLine = true;
        while (i < n) {
            if (!firstLine) {
                while (i < n && text.charAt(i) == ' ') {
                    i++;
                }
                if (i >= n) {
                    break;
                }
            }
            int width = Math.max(1, firstLine ? first : rest);
            if (n - i <= width) {
                lines.add(new int[] {i, n});
                break;
            }
            int lead = i;
            while (lead < n && text.charAt(lead) == ' ') {
                lead++;
            }
            int cut = text.lastIndexOf(' ', i + width);
            if (cut <= lead) {
                cut = text.indexOf(' ', lead);
                if (cut < 0) {
                    cut = n;
                }
            }
            int end = cut;
            while (end > i && text.charAt(end - 1) == ' ') {
                end--;
            }
            lines.add(new int[] {i, end});
            i = cut;
            firstLine = false;
        }
        return lines;
    }

    /** {@code text} wrapped to {@code width}, the lines after the first indented by {@code hanging} spaces. */
    static List<String> lines(String text, int width, int hanging) {
        List<String> out = new ArrayList<>();
        String pad = " ".repeat(hanging);
        for (int[] r : ranges(text, width, width - hanging)) {
            out.add((out.isEmpty() ? "" : pad) + text.substring(r[0], r[1]));
        }
        if (out.isEmpty()) {
            out.add("");
        }
        return out;
    }
}
