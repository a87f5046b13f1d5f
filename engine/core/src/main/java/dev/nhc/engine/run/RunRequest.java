package dev.nhc.engine.run;

import dev.nhc.engine.plan.Plan;
import dev.nhc.engine.state.StateStore;

import java.util.Map;
import java.util.Set;

/**
 * One run: which plan, on which node, with which state. {@code only} limits the run to these
 * check names (empty: all). {@code services} are handed to probes through ProbeContext#service
 * (e.g. replayed captures). {@code ignoreSchedule}: run checks with {@code every:} even when not due
 * (an admin asking explicitly with --only). {@code hostName}: the kernel's full host name, which
 * host patterns with a dot are matched against (null: the node's name).
 */
public record RunRequest(Plan plan, String node, StateStore state, Set<String> only,
                         Map<Class<?>, Object> services, boolean ignoreSchedule, String hostName) {

    public RunRequest {
        only = Set.copyOf(only);
        services = Map.copyOf(services);
        hostName = hostName == null ? node : hostName;
    }

    public static RunRequest of(Plan plan, String node, StateStore state) {
        return new RunRequest(plan, node, state, Set.of(), Map.of(), false, null);
    }

    public RunRequest withOnly(Set<String> names) {
        return new RunRequest(plan, node, state, names, services, !names.isEmpty() || ignoreSchedule, hostName);
    }

    public RunRequest withServices(Map<Class<?>, Object> s) {
        return new RunRequest(plan, node, state, only, s, ignoreSchedule, hostName);
    }

    /** The kernel's full host name (with its domain), for host patterns with a dot. */
    public RunRequest withHostName(String fullName) {
        return new RunRequest(plan, node, state, only, services, ignoreSchedule, fullName);
    }
}
