package dev.nhc.daemon;

import dev.nhc.engine.plan.Plan;
import dev.nhc.engine.policy.SeverityPolicy;
import dev.nhc.engine.state.StateStore;
import dev.nhc.model.Verdict;

/** What a {@link DaemonPlugin} may see and ask of the daemon. */
public interface DaemonContext {

    /** The latest verdict; null before the first check finished. */
    Verdict verdict();

    /** The running plan (its settings and sections). */
    Plan plan();

    /** The severity policy the daemon judges by: plugins map what it decided, never a policy of their own. */
    SeverityPolicy policy();

    /** The node's name, as Slurm and the reports know it. */
    String node();

    /**
     * The daemon's state store. The daemon holds the node's run lock for its whole life, so it and
     * its plugins are the only writers of this state directory.
     */
    StateStore state();

    /** Runs every check now. */
    void recheckAll();

    /** Where the daemon writes what it has to say (stderr, the journal under systemd). */
    void log(String line);

    /**
     * Something the daemon cannot serve without has stopped (an endpoint's listener): the daemon
     * says why and exits non-zero, so that systemd starts it again, rather than live on with a dead
     * endpoint. Outside {@code nhc daemon} (tests) it only logs.
     */
    default void fatal(String why) {
        log(why);
    }
}
