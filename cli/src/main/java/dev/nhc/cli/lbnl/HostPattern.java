package dev.nhc.cli.lbnl;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An LBNL NHC host match ({@code mcheck "$HOSTNAME" TARGET}) as nhc host patterns, when they select
 * exactly the same names: a bash glob ({@code n*}, {@code n0[1-4]}), a pdsh list in braces
 * ({@code {n[01-32],login1}}), a regular expression in slashes ({@code /^gpu/}), each optionally
 * negated with {@code !}. A match nhc cannot express exactly gives a reason instead, and the line
 * is then carried over with LBNL NHC's own {@code mcheck} deciding at run time.
 */
public final class HostPattern {
    private static final Pattern PDSH_NODE = Pattern.compile("^[-a-zA-Z0-9_]+[0-9]+[-.a-zA-Z0-9]*$");
    private static final Pattern PDSH_RANGE = Pattern.compile("^([-a-zA-Z0-9_]+)\\[([0-9]+)-([0-9]+)\\]([-.a-zA-Z0-9]*)$");

    /**
     * @param all      the match selects every host ({@code *})
     * @param patterns nhc patterns, any of which selects a host (empty when {@code all})
     * @param negated  the LBNL match started with {@code !}
     * @param problem  why nhc cannot express it (then the other fields are unused), or, with {@code none},
     *                 why it selects no host at all
     * @param none     the match selects no host in LBNL NHC either (a regular expression bash cannot compile)
     */
    public record Result(boolean all, List<String> patterns, boolean negated, String problem, boolean none) {
        Result(boolean all, List<String> patterns, boolean negated, String problem) {
            this(all, patterns, negated, problem, false);
        }

        static Result problem(String why) {
            return new Result(false, List.of(), false, why);
        }
    }

    /** A bracket range whose end comes before its start ([01-02] holds 1-0): regcomp refuses the expression. */
    private static final Pattern BAD_RANGE = Pattern.compile("\\[[^\\]]*?([^\\\\\\]])-([^\\]])[^\\]]*\\]");

    private HostPattern() {
    }

    public static Result translate(String target) {
        boolean negated = target.startsWith("!");
        String t = negated ? target.substring(1) : target;
        if (t.equals("*") && !negated) {
            return new Result(true, List.of(), false, null);
        }
        List<String> patterns;
        String problem;
        if (t.length() >= 2 && t.startsWith("/") && t.endsWith("/")) {
            String re = t.substring(1, t.length() - 1);
            String invalid = invalidRange(re);
            if (invalid != null) {
                // bash's [[ =~ ]] cannot compile it and answers "no match": !/…/ is then every host
                return negated ? new Result(true, List.of(), false, null)
                        : new Result(false, List.of(), false, "the regular expression /" + re + "/ has the empty range " + invalid
                                + ", which bash cannot compile, so it matches no host name", true);
            }
            patterns = new ArrayList<>();
            problem = regex(re, patterns);
        } else if (t.length() >= 2 && t.startsWith("{") && t.endsWith("}")) {
            patterns = new ArrayList<>();
            problem = pdsh(t.substring(1, t.length() - 1), patterns);
        } else {
            patterns = new ArrayList<>();
            problem = glob(t, patterns);
        }
        if (problem != null) {
            return Result.problem(problem);
        }
        return new Result(false, List.copyOf(patterns), negated, null);
    }

    /** A bash glob: literals, {@code *}, {@code ?} and single-digit ranges such as {@code [1-4]}. */
    private static String glob(String g, List<String> out) {
        StringBuilder p = new StringBuilder();
        for (int i = 0; i < g.length(); i++) {
            char c = g.charAt(i);
            if (c == '*' || c == '?' || literal(c)) {
                p.append(c);
            } else if (c == '[') {
                int close = g.indexOf(']', i);
                String body = close < 0 ? "" : g.substring(i + 1, close);
                if (!body.matches("[0-9](-[0-9])?")) {
                    return "the glob class [" + body + "] matches other than a single digit in a range";
                }
                String next = close + 1 < g.length() ? g.substring(close + 1, close + 2) : "";
                if (!next.isEmpty() && !literal(next.charAt(0)) || next.matches("[0-9]")) {
                    return "a digit class followed by '" + next + "' matches differently in nhc (its ranges take all adjacent digits)";
                }
                char lo = body.charAt(0);
                char hi = body.charAt(body.length() - 1);
                if (hi < lo) {
                    return "the glob class [" + body + "] is empty";
                }
                p.append('[').append(lo).append('-').append(hi).append(']');
                i = close;
            } else {
                return "'" + c + "' is a glob feature nhc host patterns do not have";
            }
        }
        out.add(p.toString());
        return null;
    }

    private static boolean literal(char c) {
        return c < 128 && (Character.isLetterOrDigit(c) || c == '-' || c == '_' || c == '.');
    }

    /** A pdsh list as LBNL's mcheck_range reads it: single names and prefix[start-end]suffix ranges. */
    private static String pdsh(String list, List<String> out) {
        for (String group : list.split(",", -1)) {
            if (PDSH_NODE.matcher(group).matches()) {
                out.add(group);
                continue;
            }
            Matcher m = PDSH_RANGE.matcher(group);
            if (!m.matches()) {
                return "'" + group + "' is not in pdsh syntax, so LBNL NHC stops matching the list there";
            }
            String start = m.group(2);
            String end = m.group(3);
            int width = Math.max(start.length(), end.length());
            if (width > 18) { // before parsing: more digits than a long holds
                return "the range in '" + group + "' has more than 18 digits";
            }
            if (Long.parseLong(start) > Long.parseLong(end)) {
                String s = start;
                start = end;
                end = s;
            }
            out.add(m.group(1) + "[" + pad(start, width) + "-" + pad(end, width) + "]" + m.group(4));
        }
        return null;
    }

    private static String pad(String digits, int width) {
        String d = Long.toString(Long.parseLong(digits));
        return "0".repeat(Math.max(0, width - d.length())) + d;
    }

    private static String invalidRange(String re) {
        Matcher m = BAD_RANGE.matcher(re);
        while (m.find()) {
            if (m.group(2).charAt(0) < m.group(1).charAt(0)) {
                return m.group(1) + "-" + m.group(2);
            }
        }
        return null;
    }

    /**
     * A regular expression made of literals, '.', '.*', single-digit classes, anchors, '|', and groups
     * of plain alternatives ({@code ^s(has|gpu)}), which are spelled out one alternative at a time.
     */
    private static String regex(String re, List<String> out) {
        List<String> alternatives = new ArrayList<>();
        String why = expandGroups(re, alternatives);
        if (why != null) {
            return why;
        }
        for (String expanded : alternatives) {
            for (String alt : expanded.split("\\|", -1)) {
                why = regexAlternative(alt, out);
                if (why != null) {
                    return why;
                }
            }
        }
        return null;
    }

    /** The expression with each group (a|b) replaced by each of its alternatives in turn: one string per combination. */
    private static String expandGroups(String re, List<String> out) {
        int open = re.indexOf('(');
        if (open < 0) {
            if (re.contains(")")) {
                return "the regular expression /" + re + "/ has an unbalanced ')'";
            }
            out.add(re);
            return null;
        }
        int close = re.indexOf(')', open);
        String body = close < 0 ? "" : re.substring(open + 1, close);
        String after = close < 0 ? "" : re.substring(close + 1);
        boolean topLevelBar = re.substring(0, open).contains("|") || after.replaceAll("\\([^)]*\\)", "").contains("|");
        if (close < 0 || body.contains("(") || topLevelBar || !after.isEmpty() && "*+?{".indexOf(after.charAt(0)) >= 0) {
            return "the regular expression /" + re + "/ has a group nhc host patterns cannot spell out";
        }
        for (String alt : body.split("\\|", -1)) {
            String why = expandGroups(re.substring(0, open) + alt + after, out);
            if (why != null) {
                return why;
            }
            if (out.size() > 64) {
                return "the regular expression /" + re + "/ spells out to more than 64 patterns";
            }
        }
        return null;
    }

    private static String regexAlternative(String alt, List<String> out) {
        boolean anchoredStart = alt.startsWith("^");
        boolean anchoredEnd = alt.endsWith("$") && !alt.endsWith("\\$");
        String body = alt.substring(anchoredStart ? 1 : 0, alt.length() - (anchoredEnd ? 1 : 0));
        StringBuilder g = new StringBuilder(anchoredStart ? "" : "*");
        for (int i = 0; i < body.length(); i++) {
            char c = body.charAt(i);
            if (c == '\\' && i + 1 < body.length() && (body.charAt(i + 1) == '.' || body.charAt(i + 1) == '-')) {
                g.append(body.charAt(++i));
            } else if (c == '.' && i + 1 < body.length() && body.charAt(i + 1) == '*') {
                g.append('*');
                i++;
            } else if (c == '.') {
                g.append('?');
            } else if (c == '[') {
                int close = body.indexOf(']', i);
                String cls = close < 0 ? "" : body.substring(i + 1, close);
                if (!cls.matches("[0-9](-[0-9])?") || close + 1 < body.length() && "*+?{".indexOf(body.charAt(close + 1)) >= 0) {
                    return "the regular expression /" + alt + "/ has the class [" + cls + "] nhc cannot express";
                }
                g.append('[').append(cls.charAt(0)).append('-').append(cls.charAt(cls.length() - 1)).append(']');
                i = close;
            } else if (literal(c) && c != '.') {
                g.append(c);
            } else {
                return "the regular expression /" + alt + "/ uses '" + c + "', which nhc host patterns cannot express";
            }
        }
        if (!anchoredEnd) {
            g.append('*');
        }
        String glob = g.toString().replaceAll("\\*+", "*");
        if (glob.isEmpty()) {
            return "the regular expression /" + alt + "/ matches only the empty name";
        }
        return glob(glob, out);
    }
}
