package dev.nhc.cli.lbnl;

import dev.nhc.cli.lbnl.Outcome.CarriedOver;
import dev.nhc.cli.lbnl.Outcome.Refused;
import dev.nhc.cli.lbnl.Outcome.Translated;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * lbnl_fs.nhc: {@code check_fs_mount}, {@code _rw}, {@code _ro} become {@code disk.mount};
 * {@code check_fs_free}, {@code _used}, {@code _size}, {@code _ifree}, {@code _iused} become
 * {@code disk.usage} with fail rules on df's figures. LBNL passes a space or inode check on a mount
 * point df does not list; nhc's disk.usage fails it (not mounted), which the check's note says.
 */
final class FsTranslator implements FunctionTranslator {
    static final String FAMILY = "fs";
    /** The option regexes LBNL NHC and its users write for "this mount option is present". */
    private static final Pattern OPTION_PRESENT = Pattern.compile("/\\(\\^\\|,\\)((?:[A-Za-z0-9_=:.+-]|\\\\\\.)+)\\((?:\\$\\|,|,\\|\\$)\\)/");

    @Override
    public Outcome translate(String function, List<String> args, ImportContext ctx) {
        if (!function.startsWith("check_fs_")) {
            return null;
        }
        if (ctx.tainted(FAMILY)) {
            return new CarriedOver("an earlier line changes how LBNL NHC reads mounts or df (" + String.join(", ", ctx.taintedVariables(FAMILY)) + ")");
        }
        return switch (function) {
            case "check_fs_mount" -> mount(function, args, null);
            case "check_fs_mount_rw" -> mount(function, args, "rw");
            case "check_fs_mount_ro" -> mount(function, args, "ro");
            case "check_fs_free", "check_fs_used", "check_fs_size", "check_fs_ifree", "check_fs_iused" -> usage(function, args);
            case "check_fs_inodes" -> new CarriedOver("nhc's disk.usage has no total inode count to compare");
            default -> new CarriedOver(function + " has no nhc equivalent");
        };
    }

    private static Outcome mount(String function, List<String> args, String mode) {
        List<String> mounts = new ArrayList<>();
        List<String> sources = new ArrayList<>();
        List<String> types = new ArrayList<>();
        List<String> optionExprs = new ArrayList<>();
        if (!args.isEmpty() && args.get(0).startsWith("/")) {
            // the old positional form: fs [src [type [options]]]; _rw and _ro drop the 4th argument
            mounts.add(args.get(0));
            addIfSet(sources, args, 1);
            addIfSet(types, args, 2);
            if (mode == null) {
                addIfSet(optionExprs, args, 3);
            }
        } else {
            Getopts.Result o = Getopts.parse(":0rE:F:O:e:f:o:s:t:", args);
            if (o.error() != null) {
                return new Refused("LBNL NHC fails this line on every node: " + function + " says " + o.error());
            }
            for (char action : new char[] {'0', 'r', 'e', 'E', 'F', 'O'}) {
                if (o.has(action)) {
                    return new CarriedOver(switch (action) {
                        case '0' -> "-0 makes a failure non-fatal (logged only); nhc has no per-check non-fatal switch";
                        case 'r' -> "-r remounts the filesystem; nhc checks only observe";
                        case 'F' -> "-F triggers the automounter first; nhc's disk.mount only reads the mount table";
                        case 'O' -> "-O gives mount options for -r's remount; nhc checks only observe";
                        default -> "-" + action + " runs an action; nhc checks only observe";
                    });
                }
            }
            mounts.addAll(o.all('f'));
            for (String r : o.rest()) {
                if (r.isEmpty()) {
                    break;
                }
                mounts.add(r);
            }
            sources.addAll(o.all('s'));
            types.addAll(o.all('t'));
            optionExprs.addAll(o.all('o'));
        }
        if (mode != null) {
            optionExprs.add("/(^|,)" + mode + "($|,)/");
        }
        if (sources.size() > 1 || types.size() > 1) {
            return new CarriedOver("several -s or -t matches for one mount; nhc's disk.mount takes one source and one type");
        }
        if (!sources.isEmpty() && !literalMatch(sources.get(0))) {
            return new CarriedOver("the source match '" + sources.get(0) + "' is a pattern; nhc's disk.mount compares the source exactly");
        }
        if (!types.isEmpty() && !literalMatch(types.get(0))) {
            return new CarriedOver("the type match '" + types.get(0) + "' is a pattern; nhc's disk.mount compares the type exactly");
        }
        List<String> options = new ArrayList<>();
        for (String expr : optionExprs) {
            Matcher m = OPTION_PRESENT.matcher(expr);
            if (!m.matches()) {
                return new CarriedOver("the option match '" + expr + "' is not a plain \"option present\" test; nhc's disk.mount lists options that must be present");
            }
            options.add(m.group(1).replace("\\.", "."));
        }
        if (mounts.isEmpty()) {
            return Translated.note("names no filesystem: LBNL NHC passes it without checking anything, so there is nothing to translate");
        }
        List<NhcCheck> checks = new ArrayList<>();
        for (String fs : mounts) {
            if (!fs.startsWith("/")) {
                return new CarriedOver("'" + fs + "' is not an absolute mount point");
            }
            NhcCheck c = new NhcCheck(function.substring("check_".length()).replace('_', '-') + "-" + FunctionTranslator.slug(fs), "disk.mount")
                    .with("mount", fs);
            if (!types.isEmpty()) {
                c.with("fstype", types.get(0));
            }
            if (!sources.isEmpty()) {
                c.with("source", sources.get(0));
                if (sources.get(0).startsWith("/dev/") || sources.get(0).contains("=")) {
                    c.note("nhc also accepts another name of the same device (a /dev/disk/by-* link, UUID=, LABEL=); LBNL NHC compared the text");
                }
            }
            if (!options.isEmpty()) {
                c.with("options", List.copyOf(options));
            }
            checks.add(c);
        }
        return new Translated(checks, java.util.Map.of(), List.of());
    }

    private static void addIfSet(List<String> to, List<String> args, int i) {
        if (args.size() > i && !args.get(i).isEmpty()) {
            to.add(args.get(i));
        }
    }

    /** An mcheck expression that matches only its own text: a glob without glob characters. */
    private static boolean literalMatch(String expr) {
        boolean regex = expr.length() >= 2 && expr.startsWith("/") && expr.endsWith("/");
        boolean range = expr.startsWith("{") && expr.endsWith("}");
        return !expr.isEmpty() && !expr.startsWith("!") && !regex && !range
                && !ShellWords.hasGlob(expr) && !expr.contains("(") && !expr.contains("\\");
    }

    private static Outcome usage(String function, List<String> args) {
        String fs = args.isEmpty() ? "" : args.get(0);
        if (!fs.startsWith("/")) {
            return new CarriedOver("'" + fs + "' is not an absolute mount point");
        }
        String a = args.size() > 1 ? args.get(1) : "";
        String b = args.size() > 2 ? args.get(2) : "";
        if (args.size() > 3) {
            return new CarriedOver("more arguments than " + function + " reads");
        }
        NhcCheck c = new NhcCheck(function.substring("check_".length()).replace('_', '-') + "-" + FunctionTranslator.slug(fs), "disk.usage")
                .with("mount", fs).noWarnings()
                .note("LBNL NHC passed this check when df did not list " + fs + "; nhc fails it when " + fs + " is not mounted");
        switch (function) {
            case "check_fs_free" -> {
                if (a.isEmpty()) {
                    return Translated.note("gives no minimum: LBNL NHC checks nothing");
                }
                Integer pct = LbnlSizes.percent(a);
                Long kib = LbnlSizes.kib(a);
                if (pct != null) {
                    // free% = 100 - df's Use% (rounded up) < N  <=>  used% > 100 - N
                    c.failWhen("used_percent", "> " + (100 - pct) + "%");
                } else if (kib != null) {
                    c.failWhen("free_bytes", "< " + LbnlSizes.quantity(kib));
                } else {
                    return new CarriedOver("'" + a + "' is not a whole percentage or size");
                }
            }
            case "check_fs_used" -> {
                if (a.isEmpty()) {
                    return Translated.note("gives no maximum: LBNL NHC checks nothing");
                }
                Integer pct = LbnlSizes.percent(a);
                Long kib = LbnlSizes.kib(a);
                if (pct != null) {
                    // df's Use% (rounded up) >= N  <=>  used% > N - 1
                    c.failWhen("used_percent", "> " + (pct - 1) + "%");
                } else if (kib != null) {
                    c.failWhen("used_bytes", ">= " + LbnlSizes.quantity(kib));
                } else {
                    return new CarriedOver("'" + a + "' is not a whole percentage or size");
                }
            }
            case "check_fs_size" -> {
                Long min = LbnlSizes.kib(a);
                Long max = LbnlSizes.kib(b);
                if (!a.isEmpty() && min == null || !b.isEmpty() && max == null) {
                    return new CarriedOver("'" + (min == null ? a : b) + "' is not a whole size");
                }
                if (min == null && max == null) {
                    return Translated.note("gives no limits: LBNL NHC checks nothing");
                }
                if (min != null) {
                    c.failWhen("size_bytes", "< " + LbnlSizes.quantity(min));
                }
                if (max != null) {
                    c.failWhen("size_bytes", "> " + LbnlSizes.quantity(max));
                }
            }
            case "check_fs_ifree" -> {
                if (a.isEmpty()) {
                    return Translated.note("gives no minimum: LBNL NHC checks nothing");
                }
                Integer pct = LbnlSizes.percent(a);
                Long n = LbnlSizes.count(a);
                if (pct != null) {
                    c.failWhen("inodes_used_percent", "> " + (100 - pct) + "%");
                } else if (n != null) {
                    c.failWhen("inodes_free", "< " + n);
                } else {
                    return new CarriedOver("'" + a + "' is not a whole percentage or count");
                }
                c.note("where the filesystem has no fixed inode count (df -i shows 0) both LBNL NHC and nhc pass");
            }
            default -> { // check_fs_iused
                if (a.isEmpty()) {
                    return Translated.note("gives no maximum: LBNL NHC checks nothing");
                }
                Integer pct = LbnlSizes.percent(a);
                if (pct == null) {
                    return new CarriedOver("nhc's disk.usage has inodes used as a percentage only, not as a count");
                }
                c.failWhen("inodes_used_percent", "> " + (pct - 1) + "%");
            }
        }
        return Translated.checks(c);
    }
}
