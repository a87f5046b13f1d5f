package dev.nhc.engine.run;

import dev.nhc.engine.plan.Plan;
import dev.nhc.engine.state.StateStore;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * One run: which plan, on which node, with which state. {@code only} limits the run to these
 * check names (empty: all). {@code services} are handed to probes through ProbeContext#service
 * (e.g. replayed captures). {@code ignoreSchedule}: run checks with {@code every:} even when not due
 * (an admin asking explicitly with --only, or the daemon, which keeps each check's schedule itself).
 * {@code hostName}: the kernel's full host name, which host patterns with a dot are matched against
 * (null: the node's name).
 */
public record RunRequest(Plan plan, String node, StateStore state, Set<String> only,
                         Map<Class<?>, Object> services, boolean ignoreSchedule, Abandoned abandoned, String hostName) {

    /** Told of a probe abandoned at its timeout, with a future that completes when the probe finally returns (if ever). */
    @FunctionalInterface
    public interface Abandoned {
        void probe(String check, CompletableFuture<Void> returned);
    }

    public RunRequest {
        only = Set.copyOf(only);
        services = Map.copyOf(services);
        abandoned = abandoned == null ? (c, r) -> { } : abandoned;
        hostName = hostName == null ? node : hostName;
    }

    public RunRequest(Plan plan, String node, StateStore state, Set<String> only, Map<Class<?>, Object> services, boolean ignoreSchedule,
                      Abandoned abandoned) {
        this(plan, node, state, only, services, ignoreSchedule, abandoned, null);
    }

    public static RunRequest of(Plan plan, String node, StateStore state) {
        return new RunRequest(plan, node, state, Set.of(), Map.of(), false, null);
    }

    public RunRequest withOnly(Set<String> names) {
        return new RunRequest(plan, node, state, names, services, !names.isEmpty() || ignoreSchedule, abandoned, hostName);
    }

    public RunRequest withServices(Map<Class<?>, Object> s) {
        return new RunRequest(plan, node, state, only, s, ignoreSchedule, abandoned, hostName);
    }

    public RunRequest ignoringSchedule() {
        return new RunRequest(plan, node, state, only, services, true, abandoned, hostName);
    }

    /** The daemon keeps a check whose probe still hangs from starting again. */
    public RunRequest onAbandoned(Abandoned a) {
        return new RunRequest(plan, node, state, only, services, ignoreSchedule, a, hostName);
    }

    /** The kernel's full host name (with its domain), for host patterns with a dot. */
    public RunRequest withHostName(String fullName) {
        return new RunRequest(plan, node, state, only, services, ignoreSchedule, abandoned, fullName);
    }
}
