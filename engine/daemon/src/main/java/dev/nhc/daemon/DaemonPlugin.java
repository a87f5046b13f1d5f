package dev.nhc.daemon;

import dev.nhc.engine.plan.Plan;
import dev.nhc.model.Verdict;

import java.io.IOException;
import java.util.List;
import java.util.Map;

/**
 * What an integration plugs into {@code nhc daemon}: dstack contributes its shim health proxy,
 * Slurm its drain/resume action. Found by ServiceLoader; the daemon starts those whose config
 * section the plan has ({@link #wanted}), gives them every new verdict, and closes them on stop.
 * A reload closes a plugin whose section went and starts one whose section came (after the new
 * plan is in place); one plugin object may so be started again after it was closed.
 *
 * <p>Threads: {@link #verdict} runs on the daemon's one action thread, one call at a time;
 * {@link #start}, {@link #reloaded} and {@link #close} on the thread that starts, reloads (the
 * SIGHUP worker) or stops the daemon; {@link #problems}, {@link #unavailable},
 * {@link #metricLabels} and {@link #metrics} on the HTTP and verdict-socket threads, at any time,
 * also while {@code verdict} runs. What a plugin shares between them must be safe for that
 * (volatile fields, concurrent collections).
 */
public interface DaemonPlugin extends AutoCloseable {

    /** A short name for logs ("dstack proxy", "slurm"). */
    String name();

    /** Whether this config asks for the plugin (typically: its section is present). */
    boolean wanted(Plan plan);

    /** Starts (listens, binds); an exception stops the daemon's start with its message. */
    void start(DaemonContext daemon) throws IOException;

    /**
     * The node's verdict was rebuilt (a check's result came in, or the periodic tick of
     * {@code settings.interval}): {@code changed} says whether any finding differs from the last
     * call's. It runs on the daemon's action thread; verdicts that come in while it runs are not
     * queued up, the plugin gets the newest one next.
     */
    default void verdict(Verdict verdict, boolean changed) {
    }

    /** A new config was accepted (SIGHUP); the plugin adopts its settings, or throws to keep the old one. */
    default void reloaded(Plan plan) throws IOException {
    }

    /**
     * Whether this plugin does what the scheduler's health-check program would do with a verdict
     * (Slurm's drain and resume). Only then may that program take the daemon's verdict from the
     * socket instead of running the checks itself: a daemon that merely judges would otherwise
     * answer it, and nothing would act on a failing node.
     */
    default boolean actsForHealthProgram() {
        return false;
    }

    /** This plugin's trouble right now (for /healthz and nhc_daemon_healthy); empty when fine. */
    default List<String> problems() {
        return List.of();
    }

    /**
     * What keeps this plugin from serving its clients right now (a proxy whose workers are all
     * stuck on a hung upstream); empty when it serves. While any plugin says so, /healthz answers
     * 503 "unavailable" with these reasons, so a supervisor or load balancer sees it; they count
     * as {@link #problems()} too.
     */
    default List<String> unavailable() {
        return List.of();
    }

    /** Labels this plugin adds to every metric (dstack's project and fleet). */
    default Map<String, String> metricLabels() {
        return Map.of();
    }

    /** Writes the plugin's own metrics (at scrape time). */
    default void metrics(MetricsOut out) {
    }

    @Override
    void close();
}
