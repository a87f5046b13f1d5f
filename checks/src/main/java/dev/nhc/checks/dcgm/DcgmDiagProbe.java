package dev.nhc.checks.dcgm;

import dev.nhc.checks.dcgm.DcgmDiagReport.Outcome;
import dev.nhc.checks.dcgm.DcgmJson.DcgmOutputException;
import dev.nhc.engine.process.ProcessRunner;
import dev.nhc.model.Entity;
import dev.nhc.model.Observation;
import dev.nhc.probe.DefaultRule;
import dev.nhc.probe.ParamSpec;
import dev.nhc.probe.Probe;
import dev.nhc.probe.ProbeContext;
import dev.nhc.probe.ProbeResult;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.probe.ProbeState;
import dev.nhc.probe.Tags;
import dev.nhc.units.Durations;
import dev.nhc.units.Unit;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * {@code dcgm.diag}: DCGM's active diagnostic ({@code dcgmi diag -r LEVEL -j}). It observes per
 * entity DCGM names (GPU, or the node for tests without one) how many tests failed, failed only
 * for a configuration reason (persistence mode off), or warned, with DCGM's words; for the node,
 * how many tests ran at all. The default rules fail on a hardware failure, warn on a configuration
 * one or a warning, and call a diag that verified nothing (every test skipped) undecided.
 *
 * <p>Diag is slow and disturbs GPU work. How often it runs is the check's own {@code every:}
 * (the runner reports the last result on the runs in between). When it is due while a process
 * has a GPU open or a Slurm job holds the node, it does not run: the check reports the last
 * diag's observations, kept in its state ({@link LastDiag}), or is skipped (never failed) when the
 * last diag passed or none ran, and the runner tries again on the next run.
 */
public final class DcgmDiagProbe implements Probe {
    public static final String NAME = "dcgm.diag";
    private static final int REASONS_MAX = 3;

    static final ParamSpec<String> DCGMI = ParamSpec.text("dcgmi", "path of dcgmi (default: settings.dcgmi, then PATH, /usr/bin)")
            .check(DcgmHealthProbe::absolute).names(ParamSpec.PathUse.RUN);
    static final ParamSpec<Long> LEVEL = ParamSpec.integer("level",
                    "diag level: 1 seconds, 2 minutes, 3 tens of minutes, 4 hours; give the check a timeout to match").defaultValue(1L)
            .check(l -> l >= 1 && l <= 4 ? null : "must be 1, 2, 3 or 4, not " + l);
    static final ParamSpec<Boolean> SKIP_WHEN_BUSY = ParamSpec.flag("skip_when_busy",
            "do not run diag while a process has a GPU open or a Slurm job holds the node").defaultValue(true);
    static final ParamSpec<List<String>> IGNORE_PROCESSES = ParamSpec.texts("ignore_processes",
            "process names that hold the GPUs without using them (DCGM, persistenced, fabric manager)").defaultValue(List.copyOf(new java.util.TreeSet<>(GpuActivity.DAEMONS)));

    private static final ProbeSpec SPEC = ProbeSpec.builder(NAME,
                    "DCGM diagnostic (dcgmi diag -r LEVEL -j, DCGM 3.x and 4.x): failed tests per GPU; only when due and the GPUs are idle. "
                            + "A failure that is only configuration (persistence mode off) warns; a diag that skipped every test is undecided")
            .tags(Tags.DCGM)
            .entities(Entity.Kind.GPU, "each GPU DCGM reports a result for, and the node (tests without a GPU, and the summary)")
            .param(DCGMI).param(LEVEL).param(SKIP_WHEN_BUSY).param(IGNORE_PROCESSES)
            .field("failed", Unit.COUNT, "tests that failed on this entity for a hardware (or unknown) reason")
            .field("config_failed", Unit.COUNT, "tests that failed on this entity only for configuration (DCGM_FR_PERSISTENCE_MODE, severity CONFIG)")
            .field("warned", Unit.COUNT, "tests that warned on this entity")
            .field("results", Unit.TEXT, "the tests that did not pass, with DCGM's words and error ids (\"(diag of TIME)\" when carried over)")
            .field("level", Unit.COUNT, "level of the diag")
            .field("age", Unit.SECONDS, "how long ago the reported diag ran")
            .field("tests", Unit.COUNT, "node: test results the diag reported")
            .field("tests_run", Unit.COUNT, "node: of those, tests that ran (passed, warned or failed) rather than were skipped")
            .field("tests_failed", Unit.COUNT, "node: of those, failed")
            .field("skip_reasons", Unit.TEXT, "node: why DCGM skipped tests, when it said")
            .field("runtime_error", Unit.TEXT, "node: DCGM's runtime error beside its results")
            .reportedFor(Entity.Kind.NODE, "tests", "tests_run", "tests_failed", "skip_reasons", "runtime_error")
            .optional("results", "runtime_error")
            .rule(DefaultRule.fail(Map.of("failed", "> 0"), "DCGM diag level {level}: {results}"))
            .rule(DefaultRule.warn(Map.of("config_failed", "> 0"),
                    "DCGM diag level {level}: {results} — a configuration problem, not a hardware fault"))
            .rule(DefaultRule.warn(Map.of("warned", "> 0"), "DCGM diag level {level}: {results}"))
            .rule(DefaultRule.unknown(Map.of("tests_run", 0), "DCGM diag level {level} verified nothing: every test was skipped ({skip_reasons})"))
            .rule(DefaultRule.unknown(Map.of("runtime_error", "~ ."), "dcgmi diag reported a runtime error: {runtime_error}"))
            .build();

    @Override
    public ProbeSpec spec() {
        return SPEC;
    }

    /** {@code nhc list dcgm.diag}: DCGM's error codes, which its findings name. */
    @Override
    public List<String> reference() {
        return DcgmErrorCodes.get().listing();
    }

    @Override
    public ProbeResult probe(ProbeContext ctx) throws Exception {
        long level = LEVEL.get(ctx.params());
        Optional<DcgmiOutputs> replay = ctx.service(DcgmiOutputs.class);
        if (replay.isPresent()) {
            Optional<String> capture = replay.get().diag();
            if (capture.isEmpty()) {
                return ProbeResult.skipped("replay has no dcgmi diag capture (--dcgmi-diag-json)");
            }
            return observe(capture.get(), "dcgmi diag capture " + replay.get().diagSource(), level, null, ctx.clock().instant());
        }
        ProbeState state = ctx.state();
        Instant now = ctx.clock().instant();
        if (SKIP_WHEN_BUSY.get(ctx.params())) {
            Set<String> ignored = new LinkedHashSet<>(IGNORE_PROCESSES.get(ctx.params()));
            String busy = GpuActivity.busy(ctx, ignored);
            if (busy != null) {
                return kept(state, now, "dcgm diag not run now: " + busy + " (diag disturbs GPU work)");
            }
        }
        Dcgmi dcgmi;
        try {
            dcgmi = Dcgmi.locate(ctx, DCGMI.get(ctx.params()));
        } catch (Dcgmi.DcgmUnavailable e) {
            return DcgmHealthProbe.unreadable(e.getMessage());
        }
        String args = "diag -r " + level + " -j";
        ProcessRunner.Result o = dcgmi.run(ctx, "diag", "-r", Long.toString(level), "-j");
        if (o.timedOut()) {
            return DcgmHealthProbe.unreadable("dcgmi " + args + " did not finish within " + Durations.human(ctx.timeLimit())
                    + " and was killed with its processes; give the check a longer timeout (level 2 takes minutes, level 3 tens of minutes)");
        }
        String engine = Dcgmi.hostEngineProblem(o);
        if (engine != null) {
            return DcgmHealthProbe.unreadable(engine);
        }
        if (o.stdout().isBlank()) {
            return DcgmHealthProbe.unreadable("dcgmi " + args + " printed nothing (exit code " + o.exitCode()
                    + (o.stderr().isBlank() ? "" : ", stderr: " + Dcgmi.quote(o)) + ")");
        }
        return observe(o.stdout(), "dcgmi " + args + " output" + (o.exitCode() != 0 ? " (exit code " + o.exitCode() + ")" : ""),
                level, state, now);
    }

    /** Observes a diag report; with a state section, keeps the observations until the next diag. */
    private static ProbeResult observe(String text, String what, long level, ProbeState state, Instant now) {
        DcgmDiagReport report;
        try {
            report = DcgmDiagReport.parse(text, what);
        } catch (DcgmOutputException e) {
            return DcgmHealthProbe.unreadable(e.getMessage());
        }
        if (report.runtimeError() != null && report.results().isEmpty()) {
            return DcgmHealthProbe.unreadable("dcgmi diag could not run its tests: " + report.runtimeError());
        }
        List<Observation> observations = observations(report, level);
        if (state != null) {
            LastDiag.save(state, now, level, observations);
        }
        List<Observation> out = new ArrayList<>();
        observations.forEach(o -> out.add(o.with(Map.of("age", 0L))));
        // Judged on what it shows; what a capture pasted in part leaves out cannot pass.
        for (String gap : report.gaps()) {
            out.add(Observation.unreadable(Entity.NODE, what + " is partial: " + gap));
        }
        return new ProbeResult(out, null);
    }

    /** Per entity: its failed, configuration-only and warned tests; the node also gets the summary. */
    static List<Observation> observations(DcgmDiagReport report, long level) {
        Map<Entity, Tally> byEntity = new LinkedHashMap<>();
        byEntity.put(Entity.NODE, new Tally());
        long run = 0;
        long failed = 0;
        Set<String> skipReasons = new LinkedHashSet<>();
        for (DcgmDiagReport.Result r : report.results()) {
            Outcome outcome = r.outcome();
            Tally t = byEntity.computeIfAbsent(r.entity(), k -> new Tally());
            if (outcome == Outcome.SKIP) {
                if (!r.message().isBlank() && skipReasons.size() < REASONS_MAX) {
                    skipReasons.add(r.message());
                }
                continue;
            }
            run++;
            if (outcome == Outcome.FAIL) {
                failed++;
            }
            t.add(r);
        }
        List<Observation> out = new ArrayList<>();
        for (Map.Entry<Entity, Tally> e : byEntity.entrySet()) {
            Entity entity = e.getKey();
            Tally t = e.getValue();
            Observation.Builder b = Observation.of(entity).put("level", level).put("failed", t.failed).put("config_failed", t.config)
                    .put("warned", t.warned).put("results", t.texts());
            if (entity.isNode()) {
                b.put("tests", (long) report.results().size()).put("tests_run", run).put("tests_failed", failed)
                        .put("skip_reasons", skipReasons.isEmpty() ? "DCGM gave no reason" : String.join("; ", skipReasons))
                        .put("runtime_error", report.runtimeError());
            }
            out.add(b.build());
        }
        return out;
    }

    /**
     * The last diag's observations, marked with when it ran; skipped for {@code skipReason} when none
     * ran or the last one passed.
     */
    private static ProbeResult kept(ProbeState state, Instant now, String skipReason) {
        LastDiag.Kept last = LastDiag.load(state);
        if (last == null) {
            return ProbeResult.skipped(skipReason);
        }
        String when = last.at().toString();
        if (last.problem() != null) {
            // not a run: an every: diag must run again as soon as the GPUs are idle, as the message says
            return DcgmHealthProbe.unreadable(skipReason + "; the last diag's result (of " + when + ") could not be read back from the "
                    + "check's state (" + last.problem() + "); diag runs again when the GPUs are idle").asCarriedOver();
        }
        if (passed(last.observations())) {
            return ProbeResult.skipped(skipReason + "; the last diag (" + when + ") passed");
        }
        long age = Math.max(0, (now.toEpochMilli() - last.at().toEpochMilli()) / 1000);
        List<Observation> out = new ArrayList<>();
        for (Observation o : last.observations()) {
            Map<String, Object> more = new LinkedHashMap<>();
            more.put("age", age);
            if (o.get("results") instanceof String r && !r.isEmpty()) {
                more.put("results", r + " (diag of " + when + ")");
            }
            out.add(o.with(more));
        }
        return new ProbeResult(out, null).asCarriedOver();
    }

    /** Nothing failed or warned, something ran, no runtime error: there is nothing to carry over. */
    private static boolean passed(List<Observation> observations) {
        for (Observation o : observations) {
            for (String f : List.of("failed", "config_failed", "warned")) {
                if (o.get(f) instanceof Long n && n > 0) {
                    return false;
                }
            }
            if (Long.valueOf(0).equals(o.get("tests_run")) || o.get("runtime_error") != null) {
                return false;
            }
        }
        return true;
    }

    /** One entity's tests that did not pass. */
    private static final class Tally {
        long failed;
        long config;
        long warned;
        final List<String> failures = new ArrayList<>();
        final List<String> configs = new ArrayList<>();
        final List<String> warnings = new ArrayList<>();

        void add(DcgmDiagReport.Result r) {
            Outcome o = r.outcome();
            if (o == Outcome.PASS) {
                return;
            }
            String where = r.entity().isNode() ? "" : " on " + r.entity().label();
            String text = "test '" + r.test() + "' " + (o == Outcome.FAIL ? "failed" : "warned") + where
                    + (r.message().isBlank() ? "" : ": " + r.message());
            if (o == Outcome.WARN) {
                warned++;
                warnings.add(text);
            } else if (r.configurationOnly()) {
                config++;
                configs.add(text);
            } else {
                failed++;
                failures.add(text);
            }
        }

        String texts() {
            List<String> all = new ArrayList<>(failures);
            all.addAll(configs);
            all.addAll(warnings);
            return all.isEmpty() ? null : String.join("; ", all);
        }
    }
}
