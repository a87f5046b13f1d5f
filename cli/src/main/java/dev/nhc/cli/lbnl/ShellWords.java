package dev.nhc.cli.lbnl;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The words bash's {@code eval $CHECK} makes of a check, when they can be known without running
 * bash. LBNL NHC expands {@code $CHECK} unquoted (so runs of blanks collapse to one space, with
 * globbing off) and evals the result: quotes group words, and anything that bash would compute at
 * run time (variables, command substitution, arithmetic, brace and tilde expansion) or that is more
 * than one simple command ({@code ;}, {@code |}, {@code &&}, redirections) makes the line dynamic.
 */
public final class ShellWords {
    private static final Pattern VARIABLE = Pattern.compile("\\$\\{?([A-Za-z_][A-Za-z0-9_]*)");
    private static final Pattern ARITHMETIC = Pattern.compile("\\$\\(\\((.*?)\\)\\)");
    private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    /**
     * @param words     the words, or null when the line is dynamic
     * @param dynamic   why the words cannot be known before bash runs (null when static)
     * @param variables the variables the text refers to (for dynamic lines)
     * @param evalText  the text as eval receives it
     */
    public record Parsed(List<String> words, String dynamic, Set<String> variables, String evalText) {
        public boolean isStatic() {
            return words != null;
        }
    }

    private ShellWords() {
    }

    public static Parsed parse(String check) {
        String text = String.join(" ", check.trim().split("[ \t\n]+"));
        Set<String> vars = new LinkedHashSet<>();
        Matcher m = VARIABLE.matcher(text);
        while (m.find()) {
            vars.add(m.group(1));
        }
        // inside $(( )) bash reads bare names as variables
        Matcher a = ARITHMETIC.matcher(text);
        while (a.find()) {
            Matcher n = NAME.matcher(a.group(1));
            while (n.find()) {
                vars.add(n.group());
            }
        }
        List<String> words = new ArrayList<>();
        StringBuilder word = null;
        int i = 0;
        while (i < text.length()) {
            char c = text.charAt(i);
            if (c == ' ') {
                if (word != null) {
                    words.add(word.toString());
                    word = null;
                }
                i++;
                continue;
            }
            if (word == null) {
                if (c == '#') {
                    break;
                }
                if (c == '~') {
                    return dynamic(text, vars, "a ~ path is expanded by bash");
                }
                word = new StringBuilder();
            }
            switch (c) {
                case '\'' -> {
                    int end = text.indexOf('\'', i + 1);
                    if (end < 0) {
                        return dynamic(text, vars, "a single quote is not closed");
                    }
                    word.append(text, i + 1, end);
                    i = end + 1;
                }
                case '"' -> {
                    int k = i + 1;
                    boolean closed = false;
                    while (k < text.length()) {
                        char d = text.charAt(k);
                        if (d == '"') {
                            closed = true;
                            break;
                        }
                        if (d == '\\' && k + 1 < text.length() && "$`\"\\".indexOf(text.charAt(k + 1)) >= 0) {
                            word.append(text.charAt(k + 1));
                            k += 2;
                            continue;
                        }
                        if (d == '`' || (d == '$' && k + 1 < text.length() && isExpansionStart(text.charAt(k + 1))
                                && "'\"".indexOf(text.charAt(k + 1)) < 0)) {
                            return dynamic(text, vars, "it uses " + expansionName(text, k) + ", which bash expands when the check runs");
                        }
                        word.append(d);
                        k++;
                    }
                    if (!closed) {
                        return dynamic(text, vars, "a double quote is not closed");
                    }
                    i = k + 1;
                }
                case '\\' -> {
                    if (i + 1 < text.length()) {
                        word.append(text.charAt(i + 1));
                    }
                    i += 2;
                }
                case '$', '`' -> {
                    if (c == '$' && (i + 1 >= text.length() || !isExpansionStart(text.charAt(i + 1)))) {
                        word.append(c);
                        i++;
                    } else {
                        return dynamic(text, vars, "it uses " + expansionName(text, i) + ", which bash expands when the check runs");
                    }
                }
                case ';', '&', '|', '<', '>', '(', ')' ->
                        {
                            return dynamic(text, vars, "'" + c + "' makes it more than one simple command");
                        }
                case '{' -> {
                    int close = text.indexOf('}', i);
                    if (close > i && text.substring(i, close).contains(",") || close > i && text.substring(i, close).contains("..")) {
                        return dynamic(text, vars, "bash expands the braces in it into several words");
                    }
                    word.append(c);
                    i++;
                }
                default -> {
                    word.append(c);
                    i++;
                }
            }
        }
        if (word != null) {
            words.add(word.toString());
        }
        return new Parsed(List.copyOf(words), null, vars, text);
    }

    private static boolean isExpansionStart(char c) {
        return Character.isLetter(c) || c == '_' || c == '{' || c == '(' || Character.isDigit(c) || "@*#?$!-'\"".indexOf(c) >= 0;
    }

    private static String expansionName(String text, int at) {
        if (text.charAt(at) == '`' || text.startsWith("$(", at) && !text.startsWith("$((", at)) {
            return "command substitution";
        }
        if (text.startsWith("$((", at)) {
            return "arithmetic";
        }
        Matcher m = VARIABLE.matcher(text);
        return m.find(at) && m.start() == at ? "$" + m.group(1) : "a $ expansion";
    }

    private static Parsed dynamic(String text, Set<String> vars, String why) {
        return new Parsed(null, why, vars, text);
    }

    /** Whether bash would treat the word as a glob if globbing were on (LBNL NHC turns it off, except in check_file_test). */
    public static boolean hasGlob(String word) {
        return word.indexOf('*') >= 0 || word.indexOf('?') >= 0 || word.indexOf('[') >= 0;
    }

    /** Quotes a word for bash, single-quoted unless it needs nothing. */
    public static String quote(String word) {
        if (!word.isEmpty() && word.matches("[A-Za-z0-9_./:=@%+,-]+")) {
            return word;
        }
        return "'" + word.replace("'", "'\\''") + "'";
    }
}
