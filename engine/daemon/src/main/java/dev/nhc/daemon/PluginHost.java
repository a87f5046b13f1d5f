package dev.nhc.daemon;

import dev.nhc.engine.plan.Plan;
import dev.nhc.model.Finding;
import dev.nhc.model.Verdict;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The daemon's plugins (Slurm's action, dstack's proxy): those the config has a section for are
 * started, kept in step with reloads, handed every rebuilt verdict on one thread of their own, in
 * order, and asked for their problems, labels and metrics.
 */
final class PluginHost implements AutoCloseable {
    private final List<DaemonPlugin> available;
    private final List<DaemonPlugin> running = new CopyOnWriteArrayList<>();
    private final Consumer<String> log;
    /** The daemon's newest verdict. */
    private final Supplier<Verdict> newest;
    /** Plugins get verdicts on this one thread, in order: a verdict never overtakes an older one (their other calls: see DaemonPlugin). */
    private final ExecutorService actions = Executors.newSingleThreadExecutor(r -> CheckScheduler.daemonThread(r, "nhc-actions"));
    /** The verdict the plugins get next; null while none waits. */
    private final AtomicReference<Verdict> waiting = new AtomicReference<>();
    /** What the plugins last heard, by {@link #fingerprint}; only the action thread touches it after start. */
    private volatile List<String> lastHeard = List.of();

    PluginHost(List<DaemonPlugin> available, Supplier<Verdict> newest, Consumer<String> log) {
        this.available = List.copyOf(available);
        this.newest = newest;
        this.log = log;
    }

    /** The verdict restored at start: plugins are told of a change only when a later one differs from it. */
    void heard(Verdict v) {
        lastHeard = fingerprint(v);
    }

    /** Starts the plugins this plan wants; one that cannot start stops the others and the daemon's start. */
    void start(Plan plan, DaemonContext daemon) throws IOException {
        for (DaemonPlugin p : available) {
            if (p.wanted(plan)) {
                try {
                    p.start(daemon);
                } catch (IOException | RuntimeException e) {
                    running.forEach(DaemonPlugin::close);
                    running.clear();
                    throw new IOException(p.name() + ": " + e.getMessage(), e);
                }
                running.add(p);
            }
        }
    }

    /** A new config: the plugins that stay adopt it; those it still wants keep their old settings when they cannot. */
    void reloaded(Plan plan) {
        for (DaemonPlugin p : running) {
            if (!p.wanted(plan)) {
                continue; // stopped by adjust
            }
            try {
                p.reloaded(plan);
            } catch (IOException | RuntimeException e) {
                log.accept(p.name() + ": " + e.getMessage() + "; it keeps its previous settings");
            }
        }
    }

    /**
     * After a reload, the plugins match the new config's sections: one whose section went is
     * closed (no Slurm actions once {@code slurm:} is removed), one whose section came is started
     * (after the new plan is in place, which it reads). Returns why a plugin could not start, or null.
     */
    String adjust(Plan plan, DaemonContext daemon) {
        String problem = null;
        for (DaemonPlugin p : available) {
            boolean wanted = p.wanted(plan);
            boolean on = running.contains(p);
            if (on && !wanted) {
                running.remove(p);
                close(p);
                log.accept(p.name() + " stopped: the config has no section for it any more");
            } else if (!on && wanted) {
                try {
                    p.start(daemon);
                    running.add(p);
                    log.accept(p.name() + " started: the config now has a section for it");
                } catch (IOException | RuntimeException e) {
                    problem = "config reloaded, but " + p.name() + " could not start: " + e.getMessage();
                    log.accept(problem);
                }
            }
        }
        return problem;
    }

    /**
     * Hands the plugins this verdict on their thread. Plugins may block (Slurm's scontrol against a
     * slow slurmctld): verdicts that come in meanwhile replace each other here instead of queueing
     * up without bound, and the plugins get the newest.
     */
    void deliver(Verdict v) {
        if (running.isEmpty() || waiting.getAndSet(v) != null) {
            return;
        }
        try {
            actions.execute(this::deliverNewest);
        } catch (RejectedExecutionException stopping) {
            // closing
        }
    }

    private void deliverNewest() {
        Verdict queued = waiting.getAndSet(null);
        if (queued == null) {
            return;
        }
        // Two checks finishing together may hand their verdicts over in either order: the daemon's is the newest.
        Verdict latest = newest.get();
        Verdict v = latest != null ? latest : queued;
        List<String> now = fingerprint(v);
        boolean changed = !now.equals(lastHeard);
        lastHeard = now;
        for (DaemonPlugin p : running) {
            try {
                p.verdict(v, changed);
            } catch (RuntimeException e) {
                log.accept(p.name() + ": " + e.getMessage());
            }
        }
    }

    /** What "the verdict changed" means to a plugin: any finding that counts, by check, entity, severity and message. */
    private static List<String> fingerprint(Verdict v) {
        List<String> out = new ArrayList<>();
        out.add(v.severity().label());
        for (Finding f : v.findings()) {
            out.add(f.check() + "|" + f.entity().label() + "|" + f.severity().label() + "|" + f.message() + "|"
                    + (f.slurmState() == null ? "" : f.slurmState().label()));
        }
        return out;
    }

    boolean actsForHealthProgram() {
        return running.stream().anyMatch(DaemonPlugin::actsForHealthProgram);
    }

    List<String> names() {
        return running.stream().map(DaemonPlugin::name).toList();
    }

    List<String> problems() {
        List<String> out = new ArrayList<>();
        running.forEach(p -> out.addAll(p.problems()));
        return out;
    }

    List<String> unavailable() {
        List<String> out = new ArrayList<>();
        running.forEach(p -> out.addAll(p.unavailable()));
        return out;
    }

    Map<String, String> labels() {
        Map<String, String> out = new LinkedHashMap<>();
        running.forEach(p -> out.putAll(p.metricLabels()));
        return out;
    }

    void metrics(MetricsOut out) {
        for (DaemonPlugin p : running) {
            try {
                p.metrics(out);
            } catch (RuntimeException e) {
                log.accept(p.name() + ": metrics: " + e.getMessage());
            }
        }
    }

    /** Lets the verdict being delivered finish (briefly), then closes every plugin. */
    @Override
    public void close() {
        actions.shutdown();
        try {
            actions.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        running.forEach(this::close);
        running.clear();
    }

    private void close(DaemonPlugin p) {
        try {
            p.close();
        } catch (RuntimeException e) {
            log.accept("closing " + p.name() + ": " + e.getMessage());
        }
    }

    /** For tests: the plugins that were started. */
    List<DaemonPlugin> running() {
        return List.copyOf(running);
    }
}
