package dev.nhc.cli;

import dev.nhc.checks.replay.ReplayInputs;
import dev.nhc.engine.config.CheckConfig;
import dev.nhc.engine.config.HostSelector;
import dev.nhc.engine.plan.Plan;
import dev.nhc.engine.plan.PlannedCheck;
import dev.nhc.engine.run.PlanExecutor;
import dev.nhc.engine.run.RunRequest;
import dev.nhc.engine.state.StateStore;
import dev.nhc.model.CheckResult;
import dev.nhc.model.Verdict;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A config's checks judged on captures instead of this machine, for {@code nhc replay} and
 * {@code nhc backtest}: the checks the captures feed (by their probes' tags) run as if on the
 * captured node, with a throw-away state directory (rates and {@code for: N} have no history in a
 * capture); the others are skipped. Host selectors apply only when the node's name is given.
 */
final class Replay {

    private Replay() {
    }

    /** The verdict of {@code plan} on {@code inputs}; {@code scratch} is a directory of this replay's own. */
    static Verdict judge(Plan plan, ReplayInputs inputs, String hostname, Path scratch) throws IOException {
        String node = hostname != null ? hostname : "replay";
        Set<String> fed = inputs.feeds();
        List<PlannedCheck> checks = new ArrayList<>();
        Set<String> replayable = new LinkedHashSet<>();
        for (PlannedCheck p : plan.checks()) {
            CheckConfig c = p.check();
            CheckConfig judged = new CheckConfig(c.name(), c.use(), c.location(), hostname != null ? c.on() : HostSelector.all(), c.with(),
                    c.warn(), c.fail(), c.message(), c.remedy(), c.slurmState(), c.forRuns(), c.onUnknown(), c.timeout(), c.every(), c.node());
            checks.add(p.withCheck(judged));
            for (String tag : fed) {
                if (p.spec().hasTag(tag)) {
                    replayable.add(c.name());
                }
            }
        }
        PlanExecutor executor = new PlanExecutor(Clock.systemUTC());
        Map<String, CheckResult> byName = new LinkedHashMap<>();
        Verdict ran = null;
        if (!replayable.isEmpty()) {
            Path state = Files.createDirectories(scratch.resolve("state"));
            RunRequest req = RunRequest.of(plan.withChecks(checks), node, new StateStore(state)).withOnly(replayable)
                    .withServices(inputs.services());
            ran = executor.run(req);
            ran.checks().forEach(r -> byName.put(r.name(), r));
        }
        List<CheckResult> all = new ArrayList<>();
        for (PlannedCheck p : checks) {
            CheckResult r = byName.get(p.name());
            all.add(r != null ? r : CheckResult.skipped(p.name(), p.check().use(), p.spec().tags(),
                    "replay: no capture holds data for " + p.check().use()));
        }
        return executor.policy().verdict(node, ran == null ? java.time.Instant.now() : ran.started(), ran == null ? 0 : ran.durationMs(), all);
    }

    /** Removes a replay's scratch directory; a leftover empty temp directory is harmless. */
    static void deleteQuietly(Path dir) {
        try (var files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // nothing to do
        }
    }
}
