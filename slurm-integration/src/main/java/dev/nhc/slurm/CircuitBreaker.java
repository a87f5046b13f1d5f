package dev.nhc.slurm;

import java.util.List;
import java.util.function.Predicate;

/**
 * How many nodes nhc may have out at once: a wrong rule must not empty a cluster, by drains or by
 * reboots. The first is always allowed (one sick node is the normal case, and a cluster of one or
 * two nodes could otherwise never be acted on); a wrong rule shows as many nodes at once.
 */
record CircuitBreaker(double maxFraction, String setting, String scope) {

    static CircuitBreaker of(double maxFraction, String setting, String partition) {
        return new CircuitBreaker(maxFraction, setting, partition == null ? "the cluster" : "partition " + partition);
    }

    /**
     * Null when one more node may be {@code what} ("drained", "rebooting"), else why not.
     *
     * @param byNhc the other nodes nhc already has so
     */
    String refuses(List<NodeStatus> nodes, String node, Predicate<NodeStatus> byNhc, String what) {
        int total = nodes.size();
        if (nodes.stream().noneMatch(n -> n.name().equals(node))) {
            total++;
        }
        long held = nodes.stream().filter(n -> !n.name().equals(node)).filter(byNhc).count();
        if (held == 0 || held + 1 <= maxFraction * total) {
            return null;
        }
        return held + " of " + total + " nodes of " + scope + " are already " + what + " by nhc; one more would pass "
                + setting + " " + maxFraction;
    }
}
