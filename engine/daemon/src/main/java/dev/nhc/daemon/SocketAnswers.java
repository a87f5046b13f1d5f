package dev.nhc.daemon;

import dev.nhc.engine.policy.ExitCodes;
import dev.nhc.model.Verdict;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * What the daemon says on its verdict socket: the verdict to bin/nhc-slurm, only while it is
 * current, for the config that program would run, and acted on by a plugin (else the program runs
 * the checks itself); and {@code nhc clear} while the daemon holds the node's state.
 */
final class SocketAnswers implements VerdictSocket.Handler {
    private final Supplier<CheckScheduler> scheduler;
    private final Supplier<Verdict> verdict;
    private final PluginHost plugins;
    private final Consumer<String> log;

    SocketAnswers(Supplier<CheckScheduler> scheduler, Supplier<Verdict> verdict, PluginHost plugins, Consumer<String> log) {
        this.scheduler = scheduler;
        this.verdict = verdict;
        this.plugins = plugins;
        this.log = log;
    }

    /** The verdict for bin/nhc-slurm, asked with the config file it would run. */
    @Override
    public VerdictSocket.Answer verdict(String configFile) {
        CheckScheduler s = scheduler.get();
        Verdict v = verdict.get();
        if (s == null || v == null) {
            return VerdictSocket.Answer.unavailable("no verdict yet");
        }
        String mine = String.valueOf(s.plan().config().file());
        if (configFile != null && !configFile.isEmpty() && !sameFile(configFile, mine)) {
            return VerdictSocket.Answer.unavailable("the daemon runs " + mine + ", not " + configFile);
        }
        String behind = s.behind(true);
        if (behind != null) {
            return VerdictSocket.Answer.unavailable(behind);
        }
        if (!plugins.actsForHealthProgram()) {
            return VerdictSocket.Answer.unavailable("the daemon does not act on the scheduler for this node (" + mine
                    + " has no section for it, such as slurm:)");
        }
        return VerdictSocket.Answer.of(ExitCodes.of(v.severity(), false), v, plugins.problems());
    }

    /**
     * {@code nhc clear CHECK...}: forgets what those checks remember (latched events, counters,
     * {@code for:} streaks, the last scheduled result) and runs them again at once; a check whose run
     * is going, or whose probe hangs, is cleared when that ends.
     */
    @Override
    public VerdictSocket.Answer clear(List<String> checks) {
        CheckScheduler s = scheduler.get();
        if (s == null) {
            return VerdictSocket.Answer.unavailable("the daemon is starting");
        }
        String out = s.clear(checks);
        if (out == null) {
            String missing = checks.stream().filter(c -> !s.checks().containsKey(c)).findFirst().orElse("?");
            return VerdictSocket.Answer.text(ExitCodes.INVALID, "no check " + missing + " in " + s.plan().config().file() + "\n");
        }
        log.accept("cleared " + String.join(", ", checks) + " on request");
        return VerdictSocket.Answer.text(ExitCodes.OK, out);
    }

    private static boolean sameFile(String a, String b) {
        try {
            return Files.isSameFile(Path.of(a), Path.of(b));
        } catch (IOException | RuntimeException e) {
            return a.equals(b);
        }
    }
}
