package dev.nhc.cli.lbnl;

import dev.nhc.cli.lbnl.Outcome.CarriedOver;
import dev.nhc.cli.lbnl.Outcome.Refused;
import dev.nhc.cli.lbnl.Outcome.Translated;

import java.util.List;

/**
 * lbnl_ps.nhc: {@code check_ps_service} and {@code check_ps_daemon} become {@code process} checks
 * that match what LBNL NHC matches in ps's output: check_ps_service the first word of the command
 * line against {@code *DAEMON} (or the -m match, or the whole command line with -f), check_ps_daemon
 * its name anywhere in the command line. {@code check_ps_loadavg} becomes {@code load}.
 *
 * <p>What check_ps_service does when the service is not running (-S start, -r restart, -c cycle, -e
 * a command), or is running when it must not (-s stop, -E a command), becomes the check's
 * {@code action}, which nhc runs only when the config says {@code settings.run_actions: true}; the
 * import leaves that off and says so. LBNL NHC fails the node for this run either way, and so does
 * the check. Killing a process by its pid (-k) and the verifying forms (-v, -V) are carried over.
 */
final class PsTranslator implements FunctionTranslator {
    static final String FAMILY = "ps";
    private static final String SERVICE = "/sbin/service";

    @Override
    public Outcome translate(String function, List<String> args, ImportContext ctx) {
        if (!function.startsWith("check_ps_")) {
            return null;
        }
        if (ctx.tainted(FAMILY)) {
            return new CarriedOver("an earlier line changes how LBNL NHC reads processes (" + String.join(", ", ctx.taintedVariables(FAMILY)) + ")");
        }
        return switch (function) {
            case "check_ps_service" -> service(args);
            case "check_ps_daemon" -> daemon(args);
            case "check_ps_loadavg" -> loadavg(args);
            case "check_ps_blacklist" -> new CarriedOver("nhc's process probe has no list of processes that must not run for any user but some");
            default -> null;
        };
    }

    private static Outcome service(List<String> args) {
        Getopts.Result o = Getopts.parse(":0E:SVcd:e:fkm:rsu:v", args);
        if (o.error() != null) {
            return new Refused("LBNL NHC fails this line on every node: check_ps_service says " + o.error());
        }
        for (char flag : new char[] {'k', 'v', 'V', '0'}) {
            if (o.has(flag)) {
                return new CarriedOver(switch (flag) {
                    case 'k' -> "-k kills the process found, by its pid; nhc's process action is a fixed command";
                    case '0' -> "-0 makes a failure non-fatal (logged only); nhc has no per-check non-fatal switch";
                    default -> "-" + flag + " passes the check when the action succeeds, and nhc's process check fails in the run that starts it";
                });
            }
        }
        String service = String.join(" ", o.rest());
        if (service.isEmpty()) {
            return new Refused("LBNL NHC fails this line on every node: check_ps_service needs a service name");
        }
        String daemon = o.has('d') ? o.last('d') : service;
        String match = o.has('m') ? o.last('m') : "*" + daemon;
        if (match.startsWith("/") && match.endsWith("/") || match.startsWith("{") || match.startsWith("!")) {
            return new CarriedOver("the process match '" + match + "' is a regex, range or negation; nhc's process globs cover plain globs");
        }
        boolean mustNotRun = o.has('s') || o.has('E');
        NhcCheck c = new NhcCheck(FunctionTranslator.slug(service) + (mustNotRun ? "-not-running" : "-running"), "process")
                .with(o.has('f') ? "cmdline" : "argv0", match);
        if (mustNotRun) {
            c.with("state", "absent");
        }
        String owner = o.last('u');
        if (owner != null && !owner.isEmpty()) {
            if (!FunctionTranslator.plain(owner)) {
                return new CarriedOver("the owner match '" + owner + "' is a pattern; nhc's process probe takes one user name or uid");
            }
            c.with("user", owner);
        }
        List<String> action = action(o, service);
        if (action != null) {
            c.with("action", action);
            c.differs("LBNL NHC runs '" + String.join(" ", action.size() == 3 && action.get(0).equals("/bin/bash") ? action.subList(2, 3) : action)
                    + "' when " + daemon + (mustNotRun ? " is running" : " is not running") + "; nhc does so only with settings.run_actions: true, "
                    + "which this config leaves off (either way the node fails this run, as in LBNL NHC)");
        }
        return Translated.checks(c);
    }

    /**
     * The command LBNL NHC runs: for a missing service -S start, -r restart, -c stop and start, -e its own;
     * for one that must not run -s stop, -E its own.
     */
    private static List<String> action(Getopts.Result o, String service) {
        if (o.has('s')) {
            return List.of(SERVICE, service, "stop");
        }
        if (o.has('E')) {
            return List.of("/bin/bash", "-c", o.last('E'));
        }
        if (o.has('S')) {
            return List.of(SERVICE, service, "start");
        }
        if (o.has('r')) {
            return List.of(SERVICE, service, "restart");
        }
        if (o.has('c')) {
            return List.of("/bin/bash", "-c", SERVICE + " " + service + " stop ; sleep 2 ; " + SERVICE + " " + service + " start");
        }
        if (o.has('e')) {
            return List.of("/bin/bash", "-c", o.last('e'));
        }
        return null;
    }

    /** check_ps_daemon NAME [OWNER [ARGS]]: "NAME ARGS" anywhere in a command line (a glob in bash's ${…//pattern}), owned by OWNER. */
    private static Outcome daemon(List<String> args) {
        String name = args.isEmpty() ? "" : args.get(0);
        String owner = args.size() > 1 ? args.get(1) : "";
        String extra = args.size() > 2 ? args.get(2) : "";
        if (args.size() > 3 || name.isEmpty()) {
            return new CarriedOver("check_ps_daemon takes a name, an owner and arguments");
        }
        String match = extra.isEmpty() ? name : name + " " + extra;
        NhcCheck c = new NhcCheck(FunctionTranslator.slug(name) + "-running", "process").with("cmdline", "*" + match + "*");
        if (!owner.isEmpty()) {
            if (!FunctionTranslator.plain(owner)) {
                return new CarriedOver("'" + owner + "' is not a plain user name");
            }
            c.with("user", owner);
        }
        return Translated.checks(c);
    }

    private static Outcome loadavg(List<String> args) {
        String[] fields = {"load1", "load5", "load15"};
        NhcCheck c = new NhcCheck("load", "load").noWarnings();
        boolean any = false;
        if (args.size() > 3) {
            return new CarriedOver("more arguments than check_ps_loadavg reads");
        }
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (a.isEmpty()) {
                continue;
            }
            if (!a.matches("[0-9]{1,9}")) {
                return new CarriedOver("'" + a + "' is not a whole number (LBNL NHC compares whole numbers)");
            }
            // LBNL drops the fraction before comparing: int(load) >= N  <=>  load >= N
            c.failWhen(fields[i], ">= " + Long.parseLong(a));
            any = true;
        }
        if (!any) {
            return Translated.note("gives no limits: LBNL NHC checks nothing");
        }
        return Translated.checks(c);
    }
}
