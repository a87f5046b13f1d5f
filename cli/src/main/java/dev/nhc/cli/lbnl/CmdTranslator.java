package dev.nhc.cli.lbnl;

import dev.nhc.cli.lbnl.Outcome.CarriedOver;
import dev.nhc.cli.lbnl.Outcome.Refused;
import dev.nhc.cli.lbnl.Outcome.Translated;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * lbnl_cmd.nhc: {@code check_cmd_status [-t SECS] [-r CODE] CMD ARGS...} becomes {@code command}
 * with the exit code and time limit; {@code check_cmd_output} too, with its one {@code -m} match as
 * the output regex (a negated one fails when a line matches). {@code lsmod} searched for a module's
 * name becomes {@code kernel.module}, which reads the same /proc/modules. Several matches are
 * carried over.
 */
final class CmdTranslator implements FunctionTranslator {
    static final String FAMILY = "cmd";
    private static final int LBNL_COMMAND_TIMEOUT = 5;

    @Override
    public Outcome translate(String function, List<String> args, ImportContext ctx) {
        return switch (function) {
            case "check_cmd_status" -> command(function, Getopts.parse(":C:r:t:", args), ctx, false);
            case "check_cmd_output" -> command(function, Getopts.parse(":C:O:e:m:r:t:", args), ctx, true);
            default -> function.startsWith("check_cmd_") ? new CarriedOver(function + " has no nhc equivalent") : null;
        };
    }

    private static Outcome command(String function, Getopts.Result o, ImportContext ctx, boolean output) {
        if (o.error() != null) {
            return new Refused("LBNL NHC fails this line on every node: " + function + " says " + o.error());
        }
        if (o.has('C') || o.has('O')) {
            return new CarriedOver("-C/-O are for LBNL NHC's own wrapper checks");
        }
        int timeout = LBNL_COMMAND_TIMEOUT;
        if (o.has('t')) {
            if (!o.last('t').matches("[0-9]{1,6}")) {
                return new CarriedOver("the timeout '" + o.last('t') + "' is not whole seconds");
            }
            timeout = Integer.parseInt(o.last('t'));
        }
        if (timeout > ctx.lbnlTimeout) {
            return new Refused("LBNL NHC fails this line on every node: the command timeout " + timeout
                    + " s exceeds its TIMEOUT of " + ctx.lbnlTimeout + " s");
        }
        long exit = 0;
        if (o.has('r')) {
            if (!o.last('r').matches("[0-9]{1,3}")) {
                return new CarriedOver("the exit code '" + o.last('r') + "' is not a number");
            }
            exit = Long.parseLong(o.last('r'));
        }
        List<String> argv = new ArrayList<>();
        if (o.has('e')) {
            // -e "cmd args": LBNL splits the string on blanks, quotes and all
            argv.addAll(Arrays.asList(o.last('e').trim().split("[ \t\n]+")));
        } else {
            argv.addAll(o.rest());
        }
        if (argv.isEmpty() || argv.get(0).isEmpty()) {
            return new Refused("LBNL NHC fails this line on every node: " + function + " names no command");
        }
        String regex = null;
        boolean negated = false;
        String base = argv.get(0).substring(argv.get(0).lastIndexOf('/') + 1);
        if (output) {
            List<String> matches = o.all('m');
            if (matches.size() > 1) {
                return new CarriedOver("several -m matches; nhc's command probe takes one output regex (running the command once per match would change what it does)");
            }
            if (matches.size() == 1) {
                negated = matches.get(0).startsWith("!");
                String m = negated ? matches.get(0).substring(1) : matches.get(0);
                if (!negated && base.equals("lsmod") && argv.size() == 1 && m.matches("/[A-Za-z0-9_]+/") && exit == 0) {
                    return lsmod(m.substring(1, m.length() - 1));
                }
                regex = LineMatch.toRegex(m, false);
                if (regex == null) {
                    return new CarriedOver("the match '" + matches.get(0) + "' has no exact Java regular expression form here");
                }
            }
        }
        NhcCheck c = new NhcCheck(FunctionTranslator.slug(base) + (output ? "-output" : "-exit"), "command")
                .with("command", List.copyOf(argv));
        if (exit != 0) {
            c.with("exit_code", exit);
        }
        if (timeout > 0) {
            c.with("timeout", timeout + "s");
            if (timeout >= 10) {
                c.timeout((timeout + 2) + "s");
            }
        }
        if (regex != null) {
            c.with("output", regex);
            c.note("LBNL match: " + o.all('m').get(0));
            c.differs("LBNL NHC searched the command's stdout; nhc searches stdout and stderr together");
            if (negated) {
                // the default rules want a match; this one must not match, and the exit code still counts
                c.noWarnings().failWhen("timed_out", "true").failWhen("exit_code", "!= " + exit).failWhen("output_matches", "true");
            }
        }
        return Translated.checks(c);
    }

    /** lsmod | grep MODULE: a loaded module is a line of lsmod; one built into the kernel is not. */
    private static Outcome lsmod(String module) {
        return Translated.checks(new NhcCheck(module + "-module", "kernel.module").with("name", module).noWarnings()
                .failWhen("loaded", "false").failWhen("builtin", "true")
                .note("lsmod lists /proc/modules, which kernel.module reads; a module built into the kernel is not listed"));
    }
}
