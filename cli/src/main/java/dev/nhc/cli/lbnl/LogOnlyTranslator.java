package dev.nhc.cli.lbnl;

import dev.nhc.cli.lbnl.Outcome.CarriedOver;
import dev.nhc.cli.lbnl.Outcome.Translated;

import java.util.List;
import java.util.Set;

/**
 * LBNL NHC's process audits given only logging actions ({@code check_ps_kswapd 1800000 100 log
 * syslog}, {@code check_ps_userproc_lineage log syslog}, {@code check_ps_unauth_users log}): they
 * never fail the node, so there is no check to translate; nhc keeps no log-only checks, which the
 * import says on stderr. With {@code die} (the default when no action is given) or {@code kill}
 * they are carried over.
 */
final class LogOnlyTranslator implements FunctionTranslator {
    private static final Set<String> LOGGING = Set.of("ignore", "log", "syslog");

    @Override
    public Outcome translate(String function, List<String> args, ImportContext ctx) {
        if (function.equals("check_cpu_drop_mem_cache")) {
            return Translated.nothing("Lambda's (Azure's) check_cpu_drop_mem_cache drops the page cache when it holds more than the "
                    + "given kB, and fails only when /proc/meminfo cannot be read", "check_cpu_drop_mem_cache drops the page cache "
                    + "(echo 3 > /proc/sys/vm/drop_caches) when it is large; nhc changes nothing on the node, so nothing is imported");
        }
        List<String> actions = switch (function) {
            case "check_ps_kswapd" -> args.size() > 2 ? args.subList(2, args.size()) : List.of();
            case "check_ps_userproc_lineage", "check_ps_unauth_users" -> args.stream().filter(a -> !a.startsWith("-")).toList();
            default -> null;
        };
        if (actions == null) {
            return null;
        }
        if (actions.isEmpty() || !LOGGING.containsAll(actions) || args.stream().anyMatch(a -> a.startsWith("-"))) {
            return new CarriedOver(function + " with these actions can fail the node or kill processes, which nhc has no probe for");
        }
        return Translated.nothing("only " + String.join(" and ", actions) + ": LBNL NHC never fails the node on it",
                function + " " + String.join(" ", args) + " only logs what it finds and never fails the node; nhc keeps no log-only checks, "
                        + "so nothing is imported and nothing is logged");
    }
}
