package dev.nhc.slurm;

import dev.nhc.model.Finding;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Builds the Slurm reason "NHC: &lt;check&gt;: &lt;message&gt;" from every failing finding. The
 * reason reaches scontrol as one argv element, but slurmctld, sinfo's columns and admins' scripts
 * all read it back, so it is kept to one line of printable ASCII without double quotes, and short.
 */
public final class Reasons {
    /** The first word of every reason nhc sets; the circuit breaker and admins recognise nhc's drains by it. */
    public static final String PREFIX = "NHC:";
    /** Long enough for two or three findings, short enough for sinfo's %E and scontrol's one-line output. */
    public static final int MAX_LENGTH = 200;

    private Reasons() {
    }

    /**
     * Whether {@code reason} is one nhc wrote for this config: "NHC: " then one of its checks' names
     * and ": ". An admin's "NHC: keep this one out" is not (no check of that name): only nhc's own
     * format lets nhc take back a drain its record does not know of.
     */
    public static boolean isNhcsOwn(String reason, java.util.Collection<String> checkNames) {
        String check = checkOf(reason);
        return check != null && checkNames.contains(check);
    }

    /**
     * Whether {@code reason} has the shape of one nhc wrote under any config: "NHC: " then a check's
     * name and ": ". The circuit breaker counts other nodes' drains with this, not
     * {@link #isNhcsOwn}: their configs may name their checks differently, and a drain by nhc there is
     * still a drain by nhc. An admin's "NHC: keep this one out" is neither.
     */
    public static boolean isNhcs(String reason) {
        return checkOf(reason) != null;
    }

    /** The first check's name in a reason of nhc's shape, or null. */
    private static String checkOf(String reason) {
        if (reason == null || !reason.startsWith(PREFIX + " ")) {
            return null;
        }
        String rest = reason.substring(PREFIX.length() + 1);
        int colon = rest.indexOf(": ");
        return colon > 0 ? rest.substring(0, colon) : null;
    }

    public static String of(List<Finding> failures) {
        // One entry per check, in the verdict's order; a check failing on several entities lists them once.
        Map<String, List<String>> byCheck = new LinkedHashMap<>();
        for (Finding f : failures) {
            String check = f.check() == null ? "nhc" : f.check();
            List<String> messages = byCheck.computeIfAbsent(check, k -> new ArrayList<>());
            String m = clean(f.message());
            if (!messages.contains(m)) {
                messages.add(m);
            }
        }
        List<String> parts = new ArrayList<>();
        byCheck.forEach((check, messages) -> parts.add(clean(check) + ": " + String.join(", ", messages)));
        StringBuilder b = new StringBuilder(PREFIX);
        for (int i = 0; i < parts.size(); i++) {
            String sep = i == 0 ? " " : "; ";
            String more = i + 1 < parts.size() ? " (+" + (parts.size() - i - 1) + " more)" : "";
            if (b.length() + sep.length() + parts.get(i).length() + more.length() > MAX_LENGTH && i > 0) {
                b.append(" (+").append(parts.size() - i).append(" more)");
                break;
            }
            b.append(sep).append(parts.get(i));
        }
        return bound(b.toString());
    }

    /**
     * One line of printable ASCII: controls and newlines become spaces, double quotes single ones,
     * runs of spaces one. Other characters are written in ASCII (a dash for an em dash, "..." for
     * an ellipsis, "x" for a multiplication sign, letters without their accents), because sinfo and
     * scontrol print anything else as '?'; what has no ASCII form is a '?' all the same.
     */
    static String clean(String text) {
        if (text == null) {
            return "";
        }
        StringBuilder b = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '"' || c == '`') {
                b.append('\'');
            } else if (c == '[' || c == ']') {
                // scontrol prints "reason [user@time]"; brackets of our own would blur where the reason ends.
                b.append(c == '[' ? '(' : ')');
            } else if (c == '\\') {
                b.append('/');
            } else if (c < 0x20 || c == 0x7f) {
                b.append(' ');
            } else if (Character.isHighSurrogate(c)) {
                b.append('?'); // a character past the 16-bit range (an emoji): one '?', not two
                i += i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1)) ? 1 : 0;
            } else if (c > 0x7e) {
                b.append(ascii(c));
            } else {
                b.append(c);
            }
        }
        return b.toString().replaceAll(" {2,}", " ").strip();
    }

    /** The ASCII for a character past it: the typographic ones nhc's messages use, else the letter without its marks, else '?'. */
    static String ascii(char c) {
        String known = switch (c) {
            case '\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2015', '\u2212' -> "-";
            case '\u2026' -> "...";
            case '\u00d7' -> "x";
            case '\u00b1' -> "+/-";
            case '\u00b0', '\u00ad', '\u200b' -> "";
            case '\u2264' -> "<=";
            case '\u2265' -> ">=";
            case '\u2260' -> "!=";
            case '\u2192' -> "->";
            case '\u2190' -> "<-";
            case '\u2018', '\u2019', '\u201a', '\u201b', '\u2032', '\u00b4', '\u201c', '\u201d', '\u201e', '\u2033', '\u00ab',
                 '\u00bb' -> "'";
            case '\u00a0', '\u2002', '\u2003', '\u2009', '\u202f' -> " ";
            case '\u2022', '\u00b7' -> "*";
            case '\u00b5', '\u03bc' -> "u";
            case '\u00df' -> "ss";
            case '\u00e6' -> "ae";
            case '\u00c6' -> "AE";
            case '\u00f8' -> "o";
            case '\u00d8' -> "O";
            default -> null;
        };
        if (known != null) {
            return known;
        }
        String base = java.text.Normalizer.normalize(String.valueOf(c), java.text.Normalizer.Form.NFD).replaceAll("\\p{M}+", "");
        return base.length() == 1 && base.charAt(0) >= 0x20 && base.charAt(0) < 0x7f ? base : "?";
    }

    static String bound(String reason) {
        return reason.length() <= MAX_LENGTH ? reason : reason.substring(0, MAX_LENGTH - 3).stripTrailing() + "...";
    }
}
