package dev.nhc.cli.lbnl;

import dev.nhc.cli.lbnl.Outcome.CarriedOver;
import dev.nhc.cli.lbnl.Outcome.Refused;
import dev.nhc.cli.lbnl.Outcome.Translated;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * lbnl_fs.nhc. {@code check_fs_mount}, {@code _rw}, {@code _ro} become {@code disk.mount} with fail
 * rules that compare what LBNL NHC compares: the source, type and options columns of the mount
 * table, each with LBNL's match expression (a glob, a /regex/, or either negated with '!').
 * {@code check_fs_free}, {@code _used}, {@code _size}, {@code _ifree}, {@code _iused} become
 * {@code disk.usage} with fail rules on the figures df prints: its rounded-up Use%, kB sizes, inode
 * counts. As in LBNL NHC, a mount point df does not list passes ({@code if_unmounted: pass}), and so
 * does a filesystem of size 0 (a pseudo filesystem), a remote one under {@code df -l}, and one
 * without an inode table for the inode checks.
 */
final class FsTranslator implements FunctionTranslator {
    static final String FAMILY = "fs";

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
            case "check_fs_free", "check_fs_used", "check_fs_size" -> space(function, args, ctx);
            case "check_fs_ifree", "check_fs_iused" -> ctx.dfi.inodes() ? inodes(function, args, ctx) : space(function, args, ctx);
            case "check_fs_inodes" -> new CarriedOver("nhc's disk.usage has no total inode count to compare");
            default -> new CarriedOver(function + " has no nhc equivalent");
        };
    }

    private static Outcome mount(String function, List<String> args, String mode) {
        List<String> mounts = new ArrayList<>();
        List<String> automounts = new ArrayList<>();
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
            for (char action : new char[] {'0', 'r', 'e', 'E', 'O'}) {
                if (o.has(action)) {
                    return new CarriedOver(switch (action) {
                        case '0' -> "-0 makes a failure non-fatal (logged only); nhc has no per-check non-fatal switch";
                        case 'r' -> "-r remounts the filesystem; nhc checks only observe";
                        case 'O' -> "-O gives mount options for -r's remount; nhc checks only observe";
                        default -> "-" + action + " runs an action; nhc checks only observe";
                    });
                }
            }
            mounts.addAll(o.all('f'));
            automounts.addAll(o.all('F'));
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
        Map<String, String> rules = new LinkedHashMap<>();
        for (String[] column : List.of(new String[] {"source", "-s"}, new String[] {"fstype", "-t"}, new String[] {"options", "-o"})) {
            List<String> exprs = switch (column[0]) {
                case "source" -> sources;
                case "fstype" -> types;
                default -> optionExprs;
            };
            for (String expr : exprs) {
                String failing = MatchRule.failsWhenNot(expr);
                if (failing == null) {
                    return new CarriedOver("the " + column[1] + " match '" + expr + "' has no exact Java regular expression form here");
                }
                if (rules.containsKey(column[0])) {
                    return new CarriedOver("several " + column[1] + " matches for one mount; one nhc rule per column");
                }
                rules.put(column[0], failing);
            }
        }
        if (mounts.isEmpty() && automounts.isEmpty()) {
            return Translated.note("names no filesystem: LBNL NHC passes it without checking anything, so there is nothing to translate");
        }
        List<NhcCheck> checks = new ArrayList<>();
        for (String fs : mounts) {
            if (!fs.startsWith("/")) {
                return new CarriedOver("'" + fs + "' is not an absolute mount point");
            }
            checks.add(mountCheck(function, fs, rules, false));
        }
        for (String fs : automounts) {
            if (!fs.startsWith("/")) {
                return new CarriedOver("'" + fs + "' is not an absolute mount point");
            }
            checks.add(mountCheck(function, fs, rules, true));
        }
        return Translated.checks(checks);
    }

    private static NhcCheck mountCheck(String function, String fs, Map<String, String> rules, boolean automount) {
        String what = function.equals("check_fs_mount_rw") ? "-mount-rw" : function.equals("check_fs_mount_ro") ? "-mount-ro" : "-mount";
        NhcCheck c = new NhcCheck(FunctionTranslator.slug(fs) + what, "disk.mount").with("mount", fs);
        if (automount) {
            c.with("trigger_automount", true);
        }
        c.failWhen("mounted", "false");
        rules.forEach(c::failWhen);
        if (!rules.containsKey("options") && !rules.containsKey("source") && !rules.containsKey("fstype")) {
            c.note("mounted at all is all LBNL NHC asks here");
        }
        return c;
    }

    private static void addIfSet(List<String> to, List<String> args, int i) {
        if (args.size() > i && !args.get(i).isEmpty()) {
            to.add(args.get(i));
        }
    }

    /**
     * Space, or inodes read from a df run without -i (DFI_FLAGS without -i: LBNL NHC's inode checks
     * then compare df's block figures, and so does the translation).
     */
    private static Outcome space(String function, List<String> args, ImportContext ctx) {
        boolean blocksForInodes = function.startsWith("check_fs_i");
        DfFlags flags = blocksForInodes ? ctx.dfi : ctx.df;
        if (flags.inodes()) {
            return new CarriedOver("DF_FLAGS has -i: LBNL NHC's space checks then compare inode figures");
        }
        Usage u = usage(function, args);
        if (u.outcome != null) {
            return u.outcome;
        }
        NhcCheck c = u.check;
        String a = u.a;
        Map<String, String> guard = guard(flags, true);
        switch (function) {
            case "check_fs_free", "check_fs_ifree" -> {
                Integer pct = LbnlSizes.percent(a);
                Long amount = function.equals("check_fs_free") ? LbnlSizes.kib(a) : LbnlSizes.count(a);
                if (pct != null) {
                    // free% = 100 - df's Use% < N  <=>  Use% > 100 - N
                    c.failWhenAll(with(guard(flags, false), "df_use_percent", "> " + (100 - pct) + "%"));
                } else if (amount != null) {
                    c.failWhenAll(with(guard, "free_bytes", "< " + LbnlSizes.quantity(amount)));
                } else {
                    return new CarriedOver("'" + a + "' is not a whole percentage or size");
                }
            }
            case "check_fs_used", "check_fs_iused" -> {
                Integer pct = LbnlSizes.percent(a);
                Long amount = function.equals("check_fs_used") ? LbnlSizes.kib(a) : LbnlSizes.count(a);
                if (pct != null) {
                    c.failWhenAll(with(guard(flags, false), "df_use_percent", ">= " + pct + "%"));
                } else if (amount != null) {
                    c.failWhenAll(with(guard, "used_bytes", ">= " + LbnlSizes.quantity(amount)));
                } else {
                    return new CarriedOver("'" + a + "' is not a whole percentage or size");
                }
            }
            default -> { // check_fs_size
                Long min = LbnlSizes.kib(a);
                Long max = LbnlSizes.kib(u.b);
                if (!a.isEmpty() && min == null || !u.b.isEmpty() && max == null) {
                    return new CarriedOver("'" + (min == null ? a : u.b) + "' is not a whole size");
                }
                if (min == null && max == null) {
                    return Translated.note("gives no limits: LBNL NHC checks nothing");
                }
                if (min != null) {
                    c.failWhenAll(with(guard, "size_bytes", "< " + LbnlSizes.quantity(min)));
                }
                if (max != null) {
                    c.failWhenAll(with(guard, "size_bytes", "> " + LbnlSizes.quantity(max)));
                }
            }
        }
        if (blocksForInodes) {
            c.differs("DFI_FLAGS has no -i, so LBNL NHC's " + function + " compares df's space figures (kB, Use%), not inodes; "
                    + "the translation compares the same");
        }
        return Translated.checks(c);
    }

    private static Outcome inodes(String function, List<String> args, ImportContext ctx) {
        Usage u = usage(function, args);
        if (u.outcome != null) {
            return u.outcome;
        }
        NhcCheck c = u.check;
        String a = u.a;
        // A filesystem without an inode table (df -i shows 0 inodes) has no inode fields: no rule fires, as LBNL passes it.
        Map<String, String> guard = guard(ctx.dfi, false);
        Integer pct = LbnlSizes.percent(a);
        Long n = LbnlSizes.count(a);
        if (function.equals("check_fs_ifree")) {
            if (pct != null) {
                c.failWhenAll(with(guard, "df_inodes_use_percent", "> " + (100 - pct) + "%"));
            } else if (n != null) {
                c.failWhenAll(with(guard, "inodes_free", "< " + n));
            } else {
                return new CarriedOver("'" + a + "' is not a whole percentage or count");
            }
        } else {
            if (pct != null) {
                c.failWhenAll(with(guard, "df_inodes_use_percent", ">= " + pct + "%"));
            } else if (n != null) {
                c.failWhenAll(with(guard, "inodes_used", ">= " + n));
            } else {
                return new CarriedOver("'" + a + "' is not a whole percentage or count");
            }
        }
        return Translated.checks(c);
    }

    /** The check both kinds of usage line start from, or the outcome when the line has nothing to translate. */
    private record Usage(NhcCheck check, String a, String b, Outcome outcome) {
    }

    private static Usage usage(String function, List<String> args) {
        String fs = args.isEmpty() ? "" : args.get(0);
        if (!fs.startsWith("/")) {
            return new Usage(null, null, null, new CarriedOver("'" + fs + "' is not an absolute path"));
        }
        if (args.size() > 3 || args.size() > 2 && !function.equals("check_fs_size")) {
            return new Usage(null, null, null, new CarriedOver("more arguments than " + function + " reads"));
        }
        String a = args.size() > 1 ? args.get(1) : "";
        String b = args.size() > 2 ? args.get(2) : "";
        if (a.isEmpty() && !function.equals("check_fs_size")) {
            return new Usage(null, null, null, Translated.note("gives no limit: LBNL NHC checks nothing"));
        }
        String what = function.substring("check_fs_".length());
        NhcCheck c = new NhcCheck(FunctionTranslator.slug(fs) + "-" + what, "disk.usage")
                .with("mount", fs).with("if_unmounted", "pass").noWarnings()
                .note("as in LBNL NHC, a path df does not list as a mount point passes");
        if (!fs.equals("/") && (fs.endsWith("/") || fs.contains("//"))) {
            c.differs("LBNL NHC compares '" + fs + "' with df's mount point column as text, which never has this form, so it passes always; "
                    + "nhc measures the mount point it names");
        } else if (fs.startsWith("/dev/")) {
            c.differs("'" + fs + "' is a device, and LBNL NHC compares it with df's mount point column, so the line passes on every node "
                    + "(and so does the translation); give the mount point to have it checked");
        }
        return new Usage(c, a, b, null);
    }

    /**
     * Conditions every failing rule needs: df lists the filesystem with a size (a pseudo one of size 0
     * passes: df_use_percent is there only when it has a size, and a rule that reads it is undecided
     * otherwise), and, under -l, as a local one.
     */
    private static Map<String, String> guard(DfFlags flags, boolean sized) {
        Map<String, String> g = new LinkedHashMap<>();
        if (sized) {
            g.put("df_use_percent", ">= 0%");
        }
        if (flags.localOnly()) {
            g.put("remote", "false");
        }
        return g;
    }

    private static Map<String, String> with(Map<String, String> guard, String field, String condition) {
        Map<String, String> all = new LinkedHashMap<>(guard);
        all.put(field, condition);
        return all;
    }
}
