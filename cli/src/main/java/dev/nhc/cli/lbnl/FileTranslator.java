package dev.nhc.cli.lbnl;

import dev.nhc.cli.lbnl.Outcome.CarriedOver;
import dev.nhc.cli.lbnl.Outcome.Refused;
import dev.nhc.cli.lbnl.Outcome.Translated;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * lbnl_file.nhc: {@code check_file_contents FILE MATCH...} becomes one {@code file} check per match
 * (each must match some line); {@code check_file_test -OP... FILE...} and {@code check_file_stat
 * -OPT... FILE...} become one {@code file} check per file, with a fail rule per test on what the
 * file probe observes: its type, access (as test(1) asks the kernel), mode bits, owner, group,
 * device numbers and ages.
 */
final class FileTranslator implements FunctionTranslator {
    static final String FAMILY = "file";
    /** test(1) operators as fail conditions on the file probe's fields (the file exists: the default rule fails it otherwise). */
    private static final Map<Character, String[]> TESTS = Map.ofEntries(
            Map.entry('e', new String[0]), Map.entry('a', new String[0]),
            Map.entry('f', new String[] {"type", "!= regular"}), Map.entry('d', new String[] {"type", "!= directory"}),
            Map.entry('c', new String[] {"type", "!= char-device"}), Map.entry('b', new String[] {"type", "!= block-device"}),
            Map.entry('p', new String[] {"type", "!= fifo"}), Map.entry('S', new String[] {"type", "!= socket"}),
            Map.entry('h', new String[] {"symlink", "false"}), Map.entry('L', new String[] {"symlink", "false"}),
            Map.entry('r', new String[] {"readable", "false"}), Map.entry('w', new String[] {"writable", "false"}),
            Map.entry('x', new String[] {"executable", "false"}), Map.entry('s', new String[] {"size", "== 0"}),
            Map.entry('k', new String[] {"mode", "!~ ^[1357]"}), Map.entry('u', new String[] {"mode", "!~ ^[4-7]"}),
            Map.entry('g', new String[] {"mode", "!~ ^[2367]"}), Map.entry('O', new String[] {"uid", "!= 0"}),
            Map.entry('G', new String[] {"gid", "!= 0"}));

    @Override
    public Outcome translate(String function, List<String> args, ImportContext ctx) {
        if (!function.startsWith("check_file_")) {
            return null;
        }
        if (ctx.tainted(FAMILY)) {
            return new CarriedOver("an earlier line changes how LBNL NHC reads files (" + String.join(", ", ctx.taintedVariables(FAMILY)) + ")");
        }
        return switch (function) {
            case "check_file_contents" -> contents(args);
            case "check_file_test" -> test(args);
            case "check_file_stat" -> stat(args);
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
            NhcCheck c = new NhcCheck(FunctionTranslator.slug(path) + "-contents" + (matches.size() > 1 ? "-" + n : ""), "file")
                    .with("path", path).with("contains", regex);
            c.note("LBNL match: " + m);
            checks.add(c);
        }
        return Translated.checks(checks);
    }

    /**
     * test OP FILE for every operator and file: LBNL NHC fails at the first test that is false. -N
     * (modified since read) and -t (a terminal) have no file probe field; '-!' (pass when any test is
     * false) has no rule form over several files.
     */
    private static Outcome test(List<String> args) {
        List<Character> ops = new ArrayList<>();
        List<String> files = new ArrayList<>();
        for (String a : args) {
            if (a.matches("-[abcdefghkprstuwxOGLSN]")) {
                ops.add(a.charAt(1));
            } else if (a.equals("-!")) {
                return new CarriedOver("-! (pass when any test is false) has no nhc rule form");
            } else if (a.startsWith("-")) {
                return new Refused("LBNL NHC fails this line on every node: check_file_test says invalid operator \"" + a + "\"");
            } else {
                files.add(a);
            }
        }
        if (ops.isEmpty() || files.isEmpty()) {
            return new Refused("LBNL NHC fails this line on every node: check_file_test needs an operator and a file");
        }
        for (char op : ops) {
            if (!TESTS.containsKey(op)) {
                return new CarriedOver("test -" + op + " has no field of nhc's file probe");
            }
        }
        List<NhcCheck> checks = new ArrayList<>();
        for (String f : files) {
            if (ShellWords.hasGlob(f) || f.contains("(")) {
                return new CarriedOver("'" + f + "' is a glob, which check_file_test expands when it runs");
            }
            if (!f.startsWith("/")) {
                return new CarriedOver("'" + f + "' is relative to the directory LBNL NHC runs in");
            }
            NhcCheck c = new NhcCheck(FunctionTranslator.slug(f) + "-file", "file").with("path", f).failWhen("exists", "false");
            for (char op : ops) {
                String[] rule = TESTS.get(op);
                if (rule.length > 0) {
                    c.failWhen(rule[0], rule[1]);
                }
            }
            checks.add(c);
        }
        return Translated.checks(checks);
    }

    /** check_file_stat [-OPT VALUE]... FILE...: stat(1)'s figures against each option, for every file. */
    private static Outcome stat(List<String> args) {
        Getopts.Result o = Getopts.parse(":D:G:M:N:O:T:U:d:g:m:n:o:t:u:", args);
        if (o.error() != null) {
            return new Refused("LBNL NHC fails this line on every node: check_file_stat says " + o.error());
        }
        if (o.has('D') || o.has('d') || o.has('M')) {
            return new CarriedOver("-d (device number) and -M (mode bits present) have no rule form on nhc's file probe");
        }
        List<String[]> rules = new ArrayList<>();
        for (Map.Entry<Character, List<String>> e : o.options().entrySet()) {
            String v = e.getValue().get(e.getValue().size() - 1);
            String[] rule = switch (e.getKey()) {
                case 'n' -> seconds(v, "age_seconds", "> ");
                case 'o' -> seconds(v, "age_seconds", "<= ");
                case 'N' -> seconds(v, "ctime_age_seconds", "> ");
                case 'O' -> seconds(v, "ctime_age_seconds", "<= ");
                case 'm' -> mode(v);
                case 'u' -> v.matches("[0-9]{1,10}") ? new String[] {"uid", "!= " + v} : null;
                case 'g' -> v.matches("[0-9]{1,10}") ? new String[] {"gid", "!= " + v} : null;
                case 'U' -> FunctionTranslator.plain(v) ? new String[] {"owner", "!= " + v} : null;
                case 'G' -> FunctionTranslator.plain(v) ? new String[] {"group", "!= " + v} : null;
                case 't' -> number(v, "device_major");
                case 'T' -> number(v, "device_minor");
                default -> null;
            };
            if (rule == null) {
                return new CarriedOver("check_file_stat -" + e.getKey() + " " + v + " has no exact rule form here");
            }
            rules.add(rule);
        }
        if (o.rest().isEmpty()) {
            return Translated.note("names no file: LBNL NHC checks nothing");
        }
        List<NhcCheck> checks = new ArrayList<>();
        for (String f : o.rest()) {
            if (!f.startsWith("/") || ShellWords.hasGlob(f)) {
                return new CarriedOver("'" + f + "' is not an absolute path");
            }
            NhcCheck c = new NhcCheck(FunctionTranslator.slug(f) + "-stat", "file").with("path", f).failWhen("exists", "false");
            rules.forEach(r -> c.failWhen(r[0], r[1]));
            checks.add(c);
        }
        return Translated.checks(checks);
    }

    private static String[] seconds(String v, String field, String op) {
        return v.matches("[0-9]{1,9}") ? new String[] {field, op + v + "s"} : null;
    }

    /** LBNL compares "0" + stat's %a with the value in bash arithmetic: 0666 is octal, 666 decimal, 0x1b6 hex. */
    private static String[] mode(String v) {
        long bits;
        try {
            bits = v.startsWith("0x") || v.startsWith("0X") ? Long.parseLong(v.substring(2), 16)
                    : v.startsWith("0") ? Long.parseLong(v, 8) : Long.parseLong(v);
        } catch (NumberFormatException e) {
            return null;
        }
        if (bits < 0 || bits > 07777) {
            return null;
        }
        String octal = Long.toOctalString(bits);
        return new String[] {"mode", "!= " + "0000".substring(octal.length()) + octal};
    }

    /** stat's %t/%T (hex) against the value in bash arithmetic. */
    private static String[] number(String v, String field) {
        try {
            long n = v.startsWith("0x") ? Long.parseLong(v.substring(2), 16) : v.startsWith("0") && v.length() > 1 ? Long.parseLong(v, 8) : Long.parseLong(v);
            return new String[] {field, "!= " + n};
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
