package dev.nhc.engine.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Which hosts a check applies to, matched against the short host name — or, for a pattern with a
 * dot ({@code *.cluster.local}), against the full one, as LBNL NHC matched. Accepts Slurm-style
 * ranges ({@code gpu-[001-128]}, {@code node[1-4,7]}), globs ({@code login*}), hostgroup names,
 * lists (any of), and negation ({@code !login*}): a host is selected when it matches at least one
 * positive pattern (or there are only negative ones) and no negative one. A hostgroup is a
 * selector of its own, negations included ({@code gpu: "gpu-[01-08], !gpu-03"}): {@code gpu}
 * selects the hosts the group selects, {@code !gpu} every other host.
 */
public final class HostSelector {
    private static final HostSelector ALL = new HostSelector(List.of(), List.of(), "*");

    /** A glob, or a hostgroup's own selector. */
    private interface Matcher {
        boolean matches(String shortName, String fullName);
    }

    private final List<Matcher> include;
    private final List<Matcher> exclude;
    private final String text;

    private HostSelector(List<Matcher> include, List<Matcher> exclude, String text) {
        this.include = include;
        this.exclude = exclude;
        this.text = text;
    }

    public static HostSelector all() {
        return ALL;
    }

    /**
     * Parses patterns; a pattern that names a hostgroup stands for the hosts that group selects (a
     * group's own patterns are host patterns, not group names).
     *
     * @throws IllegalArgumentException naming the pattern, when one is not a valid host pattern
     */
    public static HostSelector parse(List<String> patterns, Map<String, List<String>> hostgroups) {
        List<Matcher> inc = new ArrayList<>();
        List<Matcher> exc = new ArrayList<>();
        for (String raw : patterns) {
            String p = raw.trim();
            boolean negate = p.startsWith("!");
            if (negate) {
                p = p.substring(1).trim();
            }
            Matcher m = hostgroups.containsKey(p) ? group(p, hostgroups.get(p)) : compile(p);
            (negate ? exc : inc).add(m);
        }
        return new HostSelector(inc, exc, String.join(", ", patterns));
    }

    /** A group with no pattern selects no host (not every host, as a selector without positives would). */
    private static Matcher group(String name, List<String> patterns) {
        if (patterns.isEmpty()) {
            return (shortName, fullName) -> false;
        }
        try {
            HostSelector own = parse(patterns, Map.of());
            return own::matches;
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("hostgroup '" + name + "': " + e.getMessage(), e);
        }
    }

    public boolean matches(String shortHostname) {
        return matches(shortHostname, shortHostname);
    }

    /** @param fullName the kernel's host name, with its domain when it has one; patterns with a dot are matched against it */
    public boolean matches(String shortName, String fullName) {
        boolean in = include.isEmpty() || include.stream().anyMatch(p -> p.matches(shortName, fullName));
        return in && exclude.stream().noneMatch(p -> p.matches(shortName, fullName));
    }

    @Override
    public String toString() {
        return text;
    }

    /** Validates one pattern; returns an error message or null. */
    public static String validate(String pattern) {
        try {
            compile(pattern.startsWith("!") ? pattern.substring(1) : pattern);
            return null;
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }

    /** A compiled pattern: a regex whose groups are numeric ranges, checked by value after the regex matches. */
    record Glob(Pattern regex, List<List<long[]>> ranges, boolean dotted) implements Matcher {
        @Override
        public boolean matches(String shortName, String fullName) {
            return matches(dotted ? fullName : shortName);
        }

        boolean matches(String host) {
            java.util.regex.Matcher m = regex.matcher(host);
            if (!m.matches()) {
                return false;
            }
            for (int g = 0; g < ranges.size(); g++) {
                String digits = m.group(g + 1);
                boolean ok = false;
                for (long[] r : ranges.get(g)) {
                    // r = {lo, hi, width}; width 0 means "no zero padding", as Slurm writes [1-128]
                    boolean widthOk = r[2] == 0 ? (digits.length() == 1 || digits.charAt(0) != '0') : digits.length() == r[2];
                    if (widthOk && digits.length() < 19) {
                        long n = Long.parseLong(digits);
                        ok |= n >= r[0] && n <= r[1];
                    }
                }
                if (!ok) {
                    return false;
                }
            }
            return true;
        }
    }

    static Glob compile(String glob) {
        if (glob.isEmpty()) {
            throw new IllegalArgumentException("empty host pattern");
        }
        StringBuilder re = new StringBuilder();
        List<List<long[]>> ranges = new ArrayList<>();
        int i = 0;
        while (i < glob.length()) {
            char c = glob.charAt(i);
            if (c == '*') {
                re.append("\\S*");
            } else if (c == '?') {
                re.append('.');
            } else if (c == '[') {
                int close = glob.indexOf(']', i);
                if (close < 0) {
                    throw new IllegalArgumentException("'" + glob + "': '[' without ']'");
                }
                ranges.add(range(glob, glob.substring(i + 1, close)));
                re.append("(\\d+)");
                i = close;
            } else if (Character.isLetterOrDigit(c) || c == '-' || c == '_' || c == '.') {
                re.append(Pattern.quote(String.valueOf(c)));
            } else {
                throw new IllegalArgumentException("'" + glob + "': character '" + c + "' cannot appear in a host name pattern");
            }
            i++;
        }
        return new Glob(Pattern.compile(re.toString()), ranges, glob.indexOf('.') >= 0);
    }

    private static List<long[]> range(String glob, String body) {
        List<long[]> out = new ArrayList<>();
        for (String part : body.split(",", -1)) {
            String p = part.trim();
            String[] ab = p.split("-", -1);
            if (!(ab.length == 1 || ab.length == 2) || !ab[0].matches("\\d{1,18}") || !ab[ab.length - 1].matches("\\d{1,18}")) {
                throw new IllegalArgumentException("'" + glob + "': '" + p + "' is not a number or a range like 001-128");
            }
            long lo = Long.parseLong(ab[0]);
            long hi = Long.parseLong(ab[ab.length - 1]);
            if (hi < lo) {
                throw new IllegalArgumentException("'" + glob + "': range " + p + " is empty");
            }
            long width = ab[0].length() > 1 && ab[0].charAt(0) == '0' ? ab[0].length() : 0;
            out.add(new long[] {lo, hi, width});
        }
        return out;
    }
}
