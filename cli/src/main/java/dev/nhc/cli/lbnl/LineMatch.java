package dev.nhc.cli.lbnl;

import java.util.Map;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * An LBNL NHC match expression applied to each line of a file or of a command's output
 * ({@code mcheck "$LINE" EXPR}), as one Java regular expression over the whole text with
 * {@code MULTILINE} (how nhc's {@code file.contains} and {@code command.output} search). A
 * {@code /regex/} is a POSIX extended regular expression matched anywhere in the line; anything else
 * is a bash glob matched against the whole line. Lines of a file are read with {@code read}, so
 * their surrounding blanks are gone; lines of command output keep them. Negated ({@code !}) and
 * pdsh-range matches have no single-regex equivalent and give null.
 */
public final class LineMatch {
    private static final Map<String, String> POSIX_CLASSES = Map.ofEntries(
            Map.entry("alpha", "A-Za-z"), Map.entry("digit", "0-9"), Map.entry("alnum", "A-Za-z0-9"),
            Map.entry("upper", "A-Z"), Map.entry("lower", "a-z"), Map.entry("space", " \\t\\x0B\\f\\r"),
            Map.entry("blank", " \\t"), Map.entry("xdigit", "0-9A-Fa-f"), Map.entry("punct", "\\p{Punct}"),
            Map.entry("cntrl", "\\x00-\\x1F\\x7F"), Map.entry("print", "\\x20-\\x7E"), Map.entry("graph", "\\x21-\\x7E"));

    private LineMatch() {
    }

    /** The Java regex, or null when the expression has no exact single-regex form. */
    public static String toRegex(String expr, boolean linesTrimmed) {
        return convert(expr, linesTrimmed, false);
    }

    /**
     * The Java regex for an LBNL match expression applied to one value (a mount table column, a user
     * name): a glob matches the whole value, a /regex/ anywhere in it, with its anchors wherever it
     * puts them. Null for what has no exact single-regex form (negation and pdsh ranges are the
     * caller's).
     */
    public static String toValueRegex(String expr) {
        return convert(expr, false, true);
    }

    private static String convert(String expr, boolean linesTrimmed, boolean oneValue) {
        if (expr.isEmpty() || expr.startsWith("!") || expr.startsWith("{") && expr.endsWith("}")) {
            return null;
        }
        String out;
        if (expr.length() >= 2 && expr.startsWith("/") && expr.endsWith("/")) {
            out = ere(expr.substring(1, expr.length() - 1), linesTrimmed, oneValue);
        } else {
            String g = glob(expr);
            out = g == null ? null : (linesTrimmed ? "^[ \\t]*" + g + "[ \\t]*$" : "^" + g + "$");
        }
        if (out == null) {
            return null;
        }
        try {
            Pattern.compile(out, Pattern.MULTILINE);
            return out;
        } catch (PatternSyntaxException e) {
            return null;
        }
    }

    private static String glob(String g) {
        StringBuilder r = new StringBuilder();
        for (int i = 0; i < g.length(); i++) {
            char c = g.charAt(i);
            if ((c == '?' || c == '*' || c == '+' || c == '@' || c == '!') && i + 1 < g.length() && g.charAt(i + 1) == '(') {
                return null;
            }
            if (c == '*') {
                r.append("[^\\n]*");
            } else if (c == '?') {
                r.append("[^\\n]");
            } else if (c == '[') {
                int end = bracketEnd(g, i);
                if (end < 0) {
                    r.append("\\[");
                    continue;
                }
                String cls = bracket(g.substring(i + 1, end), true);
                if (cls == null) {
                    return null;
                }
                r.append(cls);
                i = end;
            } else if (c == '\\' && i + 1 < g.length()) {
                r.append(literal(g.charAt(++i)));
            } else {
                r.append(literal(c));
            }
        }
        return r.toString();
    }

    private static String literal(char c) {
        return Character.isLetterOrDigit(c) || c == ' ' || c == '_' || c == ':' || c == '=' || c == '/' || c == ',' || c == '@' || c == '%'
                ? String.valueOf(c) : "\\" + c;
    }

    /** Index of the ']' closing the bracket expression opened at {@code open}, or -1. */
    private static int bracketEnd(String s, int open) {
        int i = open + 1;
        if (i < s.length() && (s.charAt(i) == '^' || s.charAt(i) == '!')) {
            i++;
        }
        if (i < s.length() && s.charAt(i) == ']') {
            i++;
        }
        while (i < s.length()) {
            if (s.startsWith("[:", i)) {
                int close = s.indexOf(":]", i + 2);
                if (close < 0) {
                    return -1;
                }
                i = close + 2;
                continue;
            }
            if (s.charAt(i) == ']') {
                return i;
            }
            i++;
        }
        return -1;
    }

    /** A bracket expression's body as a Java class that never matches a newline, or null. */
    private static String bracket(String body, boolean glob) {
        StringBuilder r = new StringBuilder("[");
        int i = 0;
        boolean negated = false;
        if (i < body.length() && (body.charAt(i) == '^' || glob && body.charAt(i) == '!')) {
            negated = true;
            r.append('^');
            i++;
        }
        boolean first = true;
        while (i < body.length()) {
            char c = body.charAt(i);
            if (body.startsWith("[:", i)) {
                int close = body.indexOf(":]", i + 2);
                String cls = POSIX_CLASSES.get(body.substring(i + 2, close));
                if (cls == null) {
                    return null;
                }
                r.append(cls);
                i = close + 2;
                first = false;
                continue;
            }
            if (body.startsWith("[.", i) || body.startsWith("[=", i)) {
                return null;
            }
            if (c == '-' && !first && i + 1 < body.length()) {
                r.append('-');
            } else if (Character.isLetterOrDigit(c) && c < 128) {
                r.append(c);
            } else {
                r.append('\\').append(c == '\t' ? 't' : c);
            }
            first = false;
            i++;
        }
        if (negated) {
            r.append("\\n");
        }
        return r.append(']').toString();
    }

    /**
     * A POSIX ERE as bash's =~ reads it, as Java; null for what has no exact Java form here. Over
     * lines of a text searched as a whole, an anchor means only what it means at the very start or
     * end; over one value ({@code oneValue}) it may stand anywhere.
     */
    private static String ere(String re, boolean linesTrimmed, boolean oneValue) {
        StringBuilder r = new StringBuilder();
        int depth = 0;
        for (int i = 0; i < re.length(); i++) {
            char c = re.charAt(i);
            switch (c) {
                case '\\' -> {
                    if (i + 1 >= re.length()) {
                        return null;
                    }
                    char n = re.charAt(++i);
                    String mapped = switch (n) {
                        case 's' -> "[ \\t\\x0B\\f\\r]";
                        case 'S' -> "[^ \\t\\x0B\\f\\r\\n]";
                        case 'w' -> "[A-Za-z0-9_]";
                        case 'W' -> "[^A-Za-z0-9_\\n]";
                        case 'b' -> "\\b";
                        default -> Character.isLetterOrDigit(n) ? null : "\\" + n;
                    };
                    if (mapped == null) {
                        return null;
                    }
                    r.append(mapped);
                }
                case '[' -> {
                    int end = bracketEnd(re, i);
                    if (end < 0) {
                        return null;
                    }
                    String cls = bracket(re.substring(i + 1, end), false);
                    if (cls == null) {
                        return null;
                    }
                    r.append(cls);
                    i = end;
                }
                case '.' -> r.append("[^\\n]");
                case '^' -> {
                    if (i != 0 && !oneValue) {
                        return null;
                    }
                    r.append(linesTrimmed ? "^[ \\t]*" : "^");
                }
                case '$' -> {
                    if (i != re.length() - 1 && !oneValue) {
                        return null;
                    }
                    r.append(linesTrimmed ? "[ \\t]*$" : "$");
                }
                case '(' -> {
                    depth++;
                    r.append(c);
                }
                case ')' -> {
                    depth--;
                    r.append(c);
                }
                case '|' -> {
                    if (!oneValue && depth == 0 && (re.startsWith("^") || re.endsWith("$"))) {
                        return null;
                    }
                    r.append(c);
                }
                case '{' -> {
                    int close = re.indexOf('}', i);
                    if (close < 0 || !re.substring(i + 1, close).matches("[0-9]+(,[0-9]*)?") || i == 0) {
                        return null;
                    }
                    r.append(re, i, close + 1);
                    i = close;
                }
                default -> {
                    if (c == '\n') {
                        return null;
                    }
                    r.append(c);
                }
            }
        }
        return depth == 0 ? r.toString() : null;
    }
}
