package dev.nhc.cli.lbnl;

import dev.nhc.cli.lbnl.Outcome.CarriedOver;
import dev.nhc.cli.lbnl.Outcome.Refused;
import dev.nhc.cli.lbnl.Outcome.Translated;

import java.util.List;

/**
 * lbnl_ps.nhc: {@code check_ps_service} and {@code check_ps_daemon} (a named process runs, owned by
 * a user) become {@code process}; {@code check_ps_loadavg} becomes {@code load}. Service actions
 * ({@code -S} start, {@code -r} restart, {@code -c} cycle, {@code -k}/{@code -s} stop, {@code -e}/
 * {@code -E} commands) are carried over: nhc checks only observe.
 */
final class PsTranslator implements FunctionTranslator {
    static final String FAMILY = "ps";

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
            case "check_ps_blacklist" -> new CarriedOver("LBNL NHC matches the name anywhere in each command line; nhc's process probe matches process names only, so it could miss a process LBNL NHC flags");
            default -> new CarriedOver(function + " has no nhc equivalent");
        };
    }

    private static Outcome service(List<String> args) {
        Getopts.Result o = Getopts.parse(":0E:SVcd:e:fkm:rsu:v", args);
        if (o.error() != null) {
            return new Refused("LBNL NHC fails this line on every node: check_ps_service says " + o.error());
        }
        for (char action : new char[] {'S', 'r', 'c', 'k', 's', 'e', 'E', 'v', 'V', '0'}) {
            if (o.has(action)) {
                return new CarriedOver(switch (action) {
                    case 'S' -> "-S starts the service when it is not running; nhc checks only observe";
                    case 'r' -> "-r restarts the service when it is not running; nhc checks only observe";
                    case 'c' -> "-c cycles (stops and starts) the service when it is not running; nhc checks only observe";
                    case 'k', 's' -> "-" + action + " stops the service when it runs; nhc checks only observe";
                    case '0' -> "-0 makes a failure non-fatal (logged only); nhc has no per-check non-fatal switch";
                    case 'v', 'V' -> "-" + action + " verifies an action, and nhc checks take no actions";
                    default -> "-" + action + " runs a command; nhc checks only observe";
                });
            }
        }
        if (o.has('m') || o.has('f')) {
            return new CarriedOver("-m/-f match the command line with a pattern; nhc's process probe matches process names");
        }
        String service = String.join(" ", o.rest());
        if (service.isEmpty()) {
            return new Refused("LBNL NHC fails this line on every node: check_ps_service needs a service name");
        }
        String daemon = o.has('d') ? o.last('d') : service;
        if (!FunctionTranslator.plain(daemon)) {
            return new CarriedOver("'" + daemon + "' is not a plain process name; LBNL NHC matches it as the glob *" + daemon + " against argv[0]");
        }
        String owner = o.last('u');
        if (owner != null && !FunctionTranslator.plain(owner)) {
            return new CarriedOver("the owner match '" + owner + "' is a pattern; nhc's process probe takes one user name or uid");
        }
        NhcCheck c = new NhcCheck("ps-service-" + FunctionTranslator.slug(service), "process").with("name", daemon);
        if (owner != null && !owner.isEmpty()) {
            c.with("user", owner);
        }
        c.note("LBNL NHC matched argv[0] against *" + daemon + "; nhc matches the process name (comm or argv[0]'s base name)");
        return Translated.checks(c);
    }

    private static Outcome daemon(List<String> args) {
        String name = args.isEmpty() ? "" : args.get(0);
        String owner = args.size() > 1 ? args.get(1) : "";
        if (args.size() > 2 && !args.get(2).isEmpty() || args.size() > 3) {
            return new CarriedOver("the arguments to match are part of the command line; nhc's process probe matches process names");
        }
        if (!FunctionTranslator.plain(name)) {
            return new CarriedOver("'" + name + "' is not a plain process name; LBNL NHC matches it anywhere in the command line");
        }
        NhcCheck c = new NhcCheck("ps-daemon-" + FunctionTranslator.slug(name), "process").with("name", name);
        if (!owner.isEmpty()) {
            if (!FunctionTranslator.plain(owner)) {
                return new CarriedOver("'" + owner + "' is not a plain user name");
            }
            c.with("user", owner);
        }
        c.note("LBNL NHC looked for '" + name + "' anywhere in each command line; nhc matches the process name (comm or argv[0]'s base name)");
        return Translated.checks(c);
    }

    private static Outcome loadavg(List<String> args) {
        String[] fields = {"load1", "load5", "load15"};
        NhcCheck c = new NhcCheck("ps-loadavg", "load").noWarnings();
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
