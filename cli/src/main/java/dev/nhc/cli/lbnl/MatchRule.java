package dev.nhc.cli.lbnl;

/**
 * An LBNL match expression ({@code mcheck VALUE EXPR}: a glob, a /regex/, either negated with '!')
 * as the condition of an nhc fail rule on a text field: the rule fires when the value does NOT
 * match, which is when LBNL NHC's function fails. A plain word is compared as text.
 */
final class MatchRule {
    private MatchRule() {
    }

    /** The failing condition ("!= tmpfs", "!~ ^nfs4?$", "~ (^|,)ro($|,)"), or null when the expression has no exact form. */
    static String failsWhenNot(String expr) {
        boolean negated = expr.startsWith("!");
        String e = negated ? expr.substring(1) : expr;
        if (e.isEmpty()) {
            return null;
        }
        boolean regexForm = e.length() >= 2 && e.startsWith("/") && e.endsWith("/");
        boolean range = e.startsWith("{") && e.endsWith("}");
        if (!negated && !regexForm && !range && !ShellWords.hasGlob(e) && e.indexOf('\\') < 0 && !e.contains("(")) {
            return "!= " + e;
        }
        String regex = LineMatch.toValueRegex(e);
        if (regex == null) {
            return null;
        }
        return (negated ? "~ " : "!~ ") + regex;
    }
}
