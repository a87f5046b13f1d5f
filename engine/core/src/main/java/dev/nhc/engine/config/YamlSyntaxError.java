package dev.nhc.engine.config;

import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A YAML syntax error in words an admin can act on. SnakeYAML reports where it noticed the problem,
 * which for a bracket, brace or quote left open is often a line or more after the mistake; the
 * message then names where the construct was opened ("the '{' opened at 5:14 is not closed").
 */
final class YamlSyntaxError {
    private static final Pattern GOT = Pattern.compile("(expected .*), but got (.*)");

    private YamlSyntaxError() {
    }

    static ConfigException explain(String file, String text, MarkedYAMLException e) {
        Mark problem = e.getProblemMark();
        Mark context = e.getContextMark();
        String what = clean(e.getProblem() != null ? e.getProblem() : e.getMessage());
        boolean atEnd = what.contains("<stream end>") || what.contains("end of stream");
        String opener = context == null ? null : opener(e.getContext(), charAt(text, context));
        if (opener != null) {
            Location open = YamlReader.at(file, context);
            String why = atEnd ? "the file ends before it is" : found(what);
            Location where = atEnd || problem == null ? open : YamlReader.at(file, problem);
            return new ConfigException(where, "YAML syntax error: the '" + opener + "' opened at " + open.line() + ":" + open.column()
                    + " is not closed (" + why + ")");
        }
        String message = "YAML syntax error: " + (e.getContext() != null ? clean(e.getContext()) + ": " : "") + what;
        Mark at = problem != null ? problem : context;
        if (at != null) {
            // A quote left open is read on, across lines, up to the next quote; the parser trips over what follows it.
            int[] quote = unclosedQuoteBefore(text, at.getLine());
            if (quote != null) {
                message += "; the '" + (char) quote[2] + "' opened at " + (quote[0] + 1) + ":" + (quote[1] + 1) + " is not closed on its line";
            }
        }
        return new ConfigException(YamlReader.at(file, at), message);
    }

    /** The character that opened the construct SnakeYAML was reading, when it is one a writer can leave open. */
    private static String opener(String context, int c) {
        if (context == null) {
            return null;
        }
        if (context.contains("flow mapping") && c == '{') {
            return "{";
        }
        if (context.contains("flow sequence") && c == '[') {
            return "[";
        }
        if (context.contains("quoted scalar") && (c == '"' || c == '\'')) {
            return String.valueOf((char) c);
        }
        return null;
    }

    private static String found(String what) {
        Matcher m = GOT.matcher(what);
        if (!m.matches()) {
            return what;
        }
        String got = m.group(2).trim();
        return m.group(1) + ", but found " + (got.startsWith("<") ? got : "'" + got + "'");
    }

    private static int charAt(String text, Mark m) {
        String[] lines = text.split("\n", -1);
        if (m.getLine() < 0 || m.getLine() >= lines.length) {
            return -1;
        }
        String line = lines[m.getLine()];
        return m.getColumn() < line.length() ? line.charAt(m.getColumn()) : -1;
    }

    /**
     * The last quote before line {@code before} (0-based) that starts a value and is not closed on
     * its own line: {line, column, quote char}, or null. A value may legally continue a quote over
     * lines, so this is only said when the parser already failed after it.
     */
    static int[] unclosedQuoteBefore(String text, int before) {
        String[] lines = text.split("\n", -1);
        int[] last = null;
        for (int n = 0; n < Math.min(before, lines.length); n++) {
            String line = lines[n];
            int i = 0;
            while (i < line.length()) {
                char c = line.charAt(i);
                if (c == '#' && (i == 0 || line.charAt(i - 1) == ' ')) {
                    break;
                }
                if ((c == '"' || c == '\'') && startsValue(line, i)) {
                    int close = closing(line, i);
                    if (close < 0) {
                        last = new int[] {n, i, c};
                        break;
                    }
                    i = close + 1;
                    continue;
                }
                i++;
            }
        }
        return last;
    }

    private static boolean startsValue(String line, int i) {
        int j = i - 1;
        while (j >= 0 && line.charAt(j) == ' ') {
            j--;
        }
        return j < 0 || ":-[{,?".indexOf(line.charAt(j)) >= 0;
    }

    private static int closing(String line, int open) {
        char q = line.charAt(open);
        for (int i = open + 1; i < line.length(); i++) {
            char c = line.charAt(i);
            if (q == '"' && c == '\\') {
                i++;
            } else if (c == q) {
                if (q == '\'' && i + 1 < line.length() && line.charAt(i + 1) == '\'') {
                    i++;
                } else {
                    return i;
                }
            }
        }
        return -1;
    }

    private static String clean(String s) {
        return s.replace('\n', ' ').trim();
    }
}
