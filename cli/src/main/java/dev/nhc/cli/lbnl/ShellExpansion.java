package dev.nhc.cli.lbnl;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Variables of a check line expanded as bash would with values known before it runs (a node's
 * sysconfig file, or a value an earlier check pins): {@code $NAME}, {@code ${NAME}},
 * {@code ${NAME:-word}}, {@code ${NAME-word}}, {@code ${NAME+word}}, {@code ${NAME:+word}} and
 * {@code $(( ))} over whole numbers with + - *. A variable with no known value stays for bash (the
 * line is then dynamic), except in the operator forms when it is known to be unset.
 */
final class ShellExpansion {
    private static final Pattern REFERENCE = Pattern.compile("\\$(?:\\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-+])([^}]*))?}|([A-Za-z_][A-Za-z0-9_]*))");
    private static final Pattern ARITHMETIC_NAME = Pattern.compile("\\$?\\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-+])([^}]*))?}|\\$?([A-Za-z_][A-Za-z0-9_]*)");
    private static final Pattern CONDITIONAL = Pattern.compile("if \\[ (! -z|-n)( \\S+)? ]; then (.+?);? fi");

    /** The line as bash would run it, and the variables expanded in it. */
    record Expanded(String check, Set<String> used) {
    }

    private ShellExpansion() {
    }

    /**
     * @param values    the variables with known values
     * @param unsetHere whether a variable without a value is known to be unset (else it stays for bash)
     */
    static Expanded expand(String check, Map<String, String> values, Predicate<String> unsetHere) {
        Set<String> used = new LinkedHashSet<>();
        StringBuilder out = new StringBuilder();
        boolean doubleQuoted = false;
        int i = 0;
        while (i < check.length()) {
            char c = check.charAt(i);
            if (c == '\'' && !doubleQuoted) {
                int end = check.indexOf('\'', i + 1);
                end = end < 0 ? check.length() - 1 : end;
                out.append(check, i, end + 1);
                i = end + 1;
                continue;
            }
            if (c == '\\' && i + 1 < check.length()) {
                out.append(check, i, i + 2);
                i += 2;
                continue;
            }
            if (c == '"') {
                doubleQuoted = !doubleQuoted;
            }
            if (c == '$' && check.startsWith("$((", i)) {
                int end = check.indexOf("))", i);
                String value = end < 0 ? null : arithmetic(check.substring(i + 3, end), values, unsetHere, used);
                if (value != null) {
                    out.append(value);
                    i = end + 2;
                    continue;
                }
            }
            Matcher m = REFERENCE.matcher(check);
            if (c == '$' && m.find(i) && m.start() == i) {
                String name = m.group(1) != null ? m.group(1) : m.group(4);
                String value = value(values, unsetHere, name, m.group(2), m.group(3));
                if (value != null) {
                    used.add(name);
                    out.append(doubleQuoted ? value.replaceAll("([\"\\\\$`])", "\\\\$1") : unquotedWords(value));
                    i = m.end();
                    continue;
                }
            }
            out.append(c);
            i++;
        }
        return new Expanded(out.toString(), used);
    }

    /** What bash gives for the reference, or null to leave it to bash. */
    private static String value(Map<String, String> values, Predicate<String> unsetHere, String name, String operator, String word) {
        String v = values.get(name);
        if (v == null && (operator == null || !unsetHere.test(name))) {
            return null;
        }
        if (operator == null) {
            return v;
        }
        return switch (operator) {
            case ":-" -> v == null || v.isEmpty() ? word : v;
            case "-" -> v == null ? word : v;
            case "+" -> v == null ? "" : word;
            default -> v == null || v.isEmpty() ? "" : word;
        };
    }

    /** An unquoted expansion is split into words on blanks (LBNL NHC turns globbing off); each word quoted as a literal. */
    private static String unquotedWords(String value) {
        List<String> words = new ArrayList<>();
        for (String w : value.trim().split("[ \t\n]+")) {
            if (!w.isEmpty()) {
                words.add(ShellWords.quote(w));
            }
        }
        return String.join(" ", words);
    }

    /** The value of {@code $(( ))} over whole numbers with + - *, its names from this file; null when it needs anything else. */
    private static String arithmetic(String expression, Map<String, String> values, Predicate<String> unsetHere, Set<String> used) {
        StringBuilder numbers = new StringBuilder();
        Matcher m = ARITHMETIC_NAME.matcher(expression);
        int last = 0;
        Set<String> names = new LinkedHashSet<>();
        while (m.find()) {
            String name = m.group(1) != null ? m.group(1) : m.group(4);
            String v = value(values, unsetHere, name, m.group(2), m.group(3));
            if (v == null || !v.trim().matches("-?[0-9]{1,9}")) {
                return null;
            }
            names.add(name);
            numbers.append(expression, last, m.start()).append(v.trim());
            last = m.end();
        }
        numbers.append(expression.substring(last));
        String e = numbers.toString().replace(" ", "");
        if (!e.matches("-?[0-9]{1,9}(?:[-+*][0-9]{1,9})*")) {
            return null;
        }
        long sum = 0;
        for (String term : e.replaceAll("(?<=[0-9])-", "+-").split("\\+")) {
            long product = 1;
            for (String f : term.split("\\*")) {
                product *= Long.parseLong(f);
            }
            sum += product;
        }
        used.addAll(names);
        return Long.toString(sum);
    }

    /**
     * The check an expanded {@code if [ ! -z WORD ]; then CHECK; fi} runs: CHECK when WORD is not
     * empty, "" when it is (the line does nothing), or the text unchanged when it is not that form.
     */
    static String conditional(String expanded) {
        Matcher m = CONDITIONAL.matcher(String.join(" ", expanded.trim().split("[ \t]+")));
        if (!m.matches()) {
            return expanded;
        }
        if (m.group(2) == null) {
            // bash's [ -n ] tests the word "-n" (not empty: true); [ ! -z ] negates the test of "-z" (false)
            return m.group(1).equals("-n") ? m.group(3) : "";
        }
        String word = m.group(2).trim();
        ShellWords.Parsed w = ShellWords.parse(word.isEmpty() ? "''" : word);
        if (!w.isStatic() || w.words().size() != 1) {
            return expanded;
        }
        return w.words().get(0).isEmpty() ? "" : m.group(3);
    }
}
