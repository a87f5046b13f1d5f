package dev.nhc.cli.lbnl;

import java.util.List;

/** Translates the LBNL NHC check functions of one family (filesystems, hardware, processes…). */
interface FunctionTranslator {
    /** The outcome for this call, or null when the function is not one of this family's. */
    Outcome translate(String function, List<String> args, ImportContext ctx);

    /** A check name part for a path: "/" is "root", "/var/tmp" is "var-tmp". */
    static String slug(String text) {
        if (text.equals("/")) {
            return "root";
        }
        String s = text.replaceAll("[^A-Za-z0-9._]+", "-").replaceAll("^[-.]+|[-.]+$", "");
        if (s.length() > 40) {
            s = s.substring(0, 40).replaceAll("[-.]+$", "");
        }
        return s.isEmpty() ? "x" : s;
    }

    /** Whether a word is a plain literal for a name (no glob, regex, range or negation syntax). */
    static boolean plain(String word) {
        return !word.isEmpty() && word.matches("[A-Za-z0-9_.:+@=,-]+");
    }
}
