package dev.nhc.cli.lbnl;

import dev.nhc.cli.lbnl.Outcome.CarriedOver;
import dev.nhc.cli.lbnl.Outcome.Refused;
import dev.nhc.cli.lbnl.Outcome.Translated;

import java.util.ArrayList;
import java.util.List;

/**
 * lbnl_file.nhc: {@code check_file_contents FILE MATCH...} becomes one {@code file} check per
 * match (each must match some line, and nhc fails the node when any check fails, as LBNL does when
 * any match is missing); {@code check_file_test -e/-s FILE...} becomes {@code file} checks. The
 * other test operators (-r, -w, -x, -d, -f, -k, -c…) ask the kernel or the file type, which nhc's
 * file probe does not observe, so those lines are carried over.
 */
final class FileTranslator implements FunctionTranslator {
    static final String FAMILY = "file";

    @Override
    public Outcome translate(String function, List<String> args, ImportContext ctx) {
        if (!function.startsWith("check_file_")) {
            return null;
        }
        return switch (function) {
            case "check_file_contents" -> contents(args);
            case "check_file_test" -> test(args);
            default -> new CarriedOver(function + " has no nhc equivalent");
        };
    }

    private static Outcome contents(List<String> args) {
        if (args.isEmpty() || !args.get(0).startsWith("/")) {
            return new CarriedOver("'" + (args.isEmpty() ? "" : args.get(0)) + "' is not an absolute path");
        }
        String path = args.get(0);
        List<String> matches = args.subList(1, args.size());
        if (matches.isEmpty()) {
            return Translated.note("gives no match: LBNL NHC checks nothing");
        }
        List<NhcCheck> checks = new ArrayList<>();
        int n = 0;
        for (String m : matches) {
            if (m.startsWith("!")) {
                return new CarriedOver("the negated match '" + m + "' (no line may match) has no nhc equivalent: file.contains requires a match");
            }
            String regex = LineMatch.toRegex(m, true);
            if (regex == null) {
                return new CarriedOver("the match '" + m + "' has no exact Java regular expression form here");
            }
            n++;
            NhcCheck c = new NhcCheck("file-contents-" + FunctionTranslator.slug(path) + (matches.size() > 1 ? "-" + n : ""), "file")
                    .with("path", path).with("contains", regex);
            c.note("LBNL match: " + m);
            checks.add(c);
        }
        return new Translated(checks, java.util.Map.of(), List.of());
    }

    private static Outcome test(List<String> args) {
        Getopts.Result o = Getopts.parse(":!GLNOSbcdefghkprstuwx", args);
        if (o.error() != null) {
            return new Refused("LBNL NHC fails this line on every node: check_file_test says " + o.error());
        }
        if (o.options().isEmpty() || o.rest().isEmpty()) {
            return new Refused("LBNL NHC fails this line on every node: check_file_test needs an operator and a file");
        }
        for (char op : o.options().keySet()) {
            if (op != 'e' && op != 's') {
                return new CarriedOver("test -" + op + " " + switch (op) {
                    case '!' -> "negates every test";
                    case 'r', 'w', 'x' -> "asks the kernel whether the user may read, write or run the file (on a read-only filesystem -w is false even for root); nhc's file probe does not ask";
                    case 'd', 'f', 'c', 'b', 'p', 'S', 'L', 'h' -> "tests the file type, which nhc's file probe does not observe";
                    default -> "tests an attribute nhc's file probe does not observe";
                });
            }
        }
        List<NhcCheck> checks = new ArrayList<>();
        for (String f : o.rest()) {
            if (ShellWords.hasGlob(f) || f.contains("(")) {
                return new CarriedOver("'" + f + "' is a glob, which check_file_test expands when it runs");
            }
            if (!f.startsWith("/")) {
                return new CarriedOver("'" + f + "' is relative to the directory LBNL NHC runs in");
            }
            NhcCheck c = new NhcCheck("file-test-" + FunctionTranslator.slug(f), "file").with("path", f);
            if (o.has('s')) {
                c.failWhen("size", "== 0");
            }
            checks.add(c);
        }
        return new Translated(checks, java.util.Map.of(), List.of());
    }
}
