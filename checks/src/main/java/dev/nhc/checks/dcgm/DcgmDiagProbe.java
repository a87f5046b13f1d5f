package dev.nhc.checks.dcgm;

import dev.nhc.checks.dcgm.DcgmJson.DcgmOutputException;
import dev.nhc.engine.process.ProcessRunner;
import dev.nhc.model.Finding;
import dev.nhc.model.Observation;
import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;
import dev.nhc.probe.ParamSpec;
import dev.nhc.probe.ParamType;
import dev.nhc.probe.Probe;
import dev.nhc.probe.ProbeContext;
import dev.nhc.probe.ProbeResult;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.probe.ProbeState;
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
 * {@code dcgm.diag}: DCGM's active diagnostic ({@code dcgmi diag -r LEVEL -j}), one finding per
 * failed test and GPU with DCGM's error text.
 *
 * <p>Diag is slow and disturbs GPU work. How often it runs is the check's own {@code every:}
 * (the runner reports the last result on the runs in between). When it is due while a process
 * has a GPU open or a Slurm job holds the node, it does not run: the check reports the last
 * diag's findings, kept in its state, or is skipped (never failed) when there are none, and the
 * runner tries again on the next run.
 */
public final class DcgmDiagProbe implements Probe {
    public static final String NAME = "dcgm.diag";
    static final String LAST_RUN = "last_run_ms";
    static final String LAST_LEVEL = "last_level";
    static final String LAST_FINDINGS = "last_findings";

    @Override
    public ProbeSpec spec() {
        return ProbeSpec.builder(NAME, "DCGM diagnostic (dcgmi diag -r LEVEL -j): failed tests per GPU; only when due and the GPUs are idle")
                .entities("each GPU a diag test failed on, or the node when DCGM names none")
                .param(ParamSpec.optional("dcgmi", ParamType.STRING, null, "path of dcgmi (default: settings.dcgmi, then PATH, /usr/bin)"))
                .param(ParamSpec.optional("level", ParamType.INTEGER, 1L,
                        "diag level: 1 seconds, 2 minutes, 3 tens of minutes, 4 hours; give the check a timeout to match"))
                .param(ParamSpec.optional("skip_when_busy", ParamType.BOOLEAN, true,
                        "do not run diag while a process has a GPU open or a Slurm job holds the node"))
                .param(ParamSpec.optional("ignore_processes", ParamType.STRING_LIST, List.copyOf(GpuActivity.DAEMONS),
                        "process names that hold the GPUs without using them (DCGM, persistenced, fabric manager)"))
                .field("tests", Unit.COUNT, "test results the last diag reported")
                .field("failed", Unit.COUNT, "of those, failed or warned")
                .field("level", Unit.COUNT, "level of the last diag")
                .field("age", Unit.SECONDS, "how long ago the reported diag ran")
                .build();
    }

    @Override
    public ProbeResult probe(ProbeContext ctx) throws Exception {
        long level = ctx.params().integer("level") == null ? 1 : ctx.params().integer("level");
        Optional<DcgmiOutputs> replay = ctx.service(DcgmiOutputs.class);
        if (replay.isPresent()) {
            Optional<String> capture = replay.get().diag();
            if (capture.isEmpty()) {
                return ProbeResult.skipped("replay has no dcgmi diag capture (--dcgmi-diag-json)");
            }
            return judge(capture.get(), "dcgmi diag capture " + replay.get().diagSource(), level, null, ctx.clock().instant());
        }
        ProbeState state = ctx.state();
        Instant now = ctx.clock().instant();
        if (!Boolean.FALSE.equals(ctx.params().bool("skip_when_busy"))) {
            Set<String> ignored = new LinkedHashSet<>(ctx.params().strings("ignore_processes"));
            String busy = GpuActivity.busy(ctx, ignored);
            if (busy != null) {
                return stored(state, now, "dcgm diag not run now: " + busy + " (diag disturbs GPU work)");
            }
        }
        Dcgmi dcgmi;
        try {
            dcgmi = Dcgmi.locate(ctx);
        } catch (Dcgmi.DcgmUnavailable e) {
            return DcgmHealthProbe.unknown(e.getMessage());
        }
        String args = "diag -r " + level + " -j";
        ProcessRunner.Result o = dcgmi.run(ctx, "diag", "-r", Long.toString(level), "-j");
        if (o.timedOut()) {
            return DcgmHealthProbe.unknown("dcgmi " + args + " did not finish within " + o.elapsed().toMillis() / 1000.0
                    + " s and was killed with its processes; give the check a longer timeout (level 2 takes minutes, level 3 tens of minutes)");
        }
        String engine = Dcgmi.hostEngineProblem(o);
        if (engine != null) {
            return DcgmHealthProbe.unknown(engine);
        }
        if (o.stdout().isBlank()) {
            return DcgmHealthProbe.unknown("dcgmi " + args + " printed nothing (exit code " + o.exitCode()
                    + (o.stderr().isBlank() ? "" : ", stderr: " + Dcgmi.quote(o)) + ")");
        }
        return judge(o.stdout(), "dcgmi " + args + " output" + (o.exitCode() != 0 ? " (exit code " + o.exitCode() + ")" : ""),
                level, state, now);
    }

    /** Turns a diag report into findings; with a state section, remembers them until the next diag. */
    private static ProbeResult judge(String text, String what, long level, ProbeState state, Instant now) {
        DcgmDiagReport report;
        try {
            report = DcgmDiagReport.parse(text, what);
        } catch (DcgmOutputException e) {
            return DcgmHealthProbe.unknown(e.getMessage());
        }
        if (report.runtimeError() != null && report.results().isEmpty()) {
            return DcgmHealthProbe.unknown("dcgmi diag could not run its tests: " + report.runtimeError());
        }
        List<Finding> findings = new ArrayList<>();
        int failed = 0;
        for (DcgmDiagReport.Result r : report.results()) {
            Severity s = r.severity();
            if (s == Severity.PASS) {
                continue;
            }
            failed++;
            String msg = "DCGM diag level " + level + ": test '" + r.test() + "' " + (s == Severity.FAIL ? "failed" : "warned")
                    + (r.entity().startsWith("gpu") ? " on GPU " + r.entity().substring(3) : "")
                    + (r.message().isBlank() ? "" : ": " + r.message());
            findings.add(new Finding(null, r.entity(), s, msg, Remedy.NONE, null, Map.of("test", r.test(), "status", r.status())));
        }
        if (report.runtimeError() != null) {
            findings.add(Finding.of("node", Severity.UNKNOWN, "dcgmi diag reported a runtime error: " + report.runtimeError()));
        }
        if (state != null) {
            state.put(LAST_RUN, now.toEpochMilli());
            state.put(LAST_LEVEL, level);
            state.put(LAST_FINDINGS, findings.stream().map(DcgmDiagProbe::toState).toList());
        }
        return new ProbeResult(List.of(Observation.of("node").put("tests", report.results().size()).put("failed", failed)
                .put("level", level).put("age", 0L).build()), findings, null);
    }

    /**
     * The last diag's findings, marked with when they were found; when there are none the check
     * is skipped for {@code skipReason}.
     */
    private static ProbeResult stored(ProbeState state, Instant now, String skipReason) {
        long lastRun = state.getLong(LAST_RUN, -1);
        if (lastRun < 0) {
            return ProbeResult.skipped(skipReason);
        }
        List<Finding> findings = new ArrayList<>();
        Object saved = state.get(LAST_FINDINGS);
        String when = Instant.ofEpochMilli(lastRun).toString();
        if (saved instanceof List<?> list) {
            for (Object o : list) {
                if (o instanceof Map<?, ?> m) {
                    Finding f = fromState(m);
                    if (f != null) {
                        findings.add(new Finding(null, f.entity(), f.severity(), f.message() + " (diag of " + when + ")",
                                f.remedy(), null, f.observed()));
                    }
                }
            }
        }
        if (findings.isEmpty()) {
            return ProbeResult.skipped(skipReason + "; the last diag (" + when + ") passed");
        }
        long age = Math.max(0, (now.toEpochMilli() - lastRun) / 1000);
        Observation obs = Observation.of("node").put("failed", findings.size()).put("level", state.getLong(LAST_LEVEL, 1))
                .put("age", age).build();
        return new ProbeResult(List.of(obs), findings, null).asCarriedOver();
    }

    private static Map<String, Object> toState(Finding f) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("entity", f.entity());
        m.put("severity", f.severity().label());
        m.put("message", f.message());
        m.put("remedy", f.remedy().label());
        Object test = f.observed().get("test");
        if (test != null) {
            m.put("test", test.toString());
        }
        return m;
    }

    /** A finding saved by an earlier run; a damaged entry is dropped rather than failing the check. */
    private static Finding fromState(Map<?, ?> m) {
        try {
            String test = m.get("test") == null ? null : m.get("test").toString();
            return new Finding(null, String.valueOf(m.get("entity")), Severity.parse(String.valueOf(m.get("severity"))),
                    String.valueOf(m.get("message")), Remedy.parse(String.valueOf(m.get("remedy"))), null,
                    test == null ? Map.of() : Map.of("test", test));
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
