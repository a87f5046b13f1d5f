package dev.nhc.rules;

import dev.nhc.engine.config.CheckConfig;
import dev.nhc.engine.config.Problems;
import dev.nhc.engine.eval.Evaluator;
import dev.nhc.model.Finding;
import dev.nhc.model.Observation;
import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;
import dev.nhc.probe.ProbeResult;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.engine.state.StateSection;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The rules engine behind {@link Evaluator}: compiles each check's conditions once (at load time,
 * reporting every mistake with its place) and judges every probe result against them.
 * {@code on_unknown} is the engine's business, applied to what this returns.
 */
public final class RulesEvaluator implements Evaluator {
    /**
     * Compiled rules per CheckConfig object. Keyed by identity: the same config object is judged
     * every run, and a reloaded config (the daemon) brings new objects. Bounded so that repeated
     * reloads cannot grow it forever; clearing only costs a recompile.
     */
    private static final int CACHE_LIMIT = 4096;
    private final Map<CheckConfig, CompiledCheck> compiled = Collections.synchronizedMap(new IdentityHashMap<>());

    @Override
    public void validate(CheckConfig check, ProbeSpec spec, Problems problems) {
        CompiledCheck c = RuleCompiler.compile(check, spec, problems);
        if (c != null) {
            remember(check, c);
        }
    }

    @Override
    public List<Finding> evaluate(CheckConfig check, ProbeSpec spec, ProbeResult result, StateSection memory) {
        List<Finding> out = new ArrayList<>(result.observations().size() + result.findings().size());
        if (!result.observations().isEmpty()) {
            CompiledCheck rules = compiledFor(check, spec);
            if (rules == null) {
                return List.of(invalid(check, spec));
            }
            // An entity the probe judged itself (a lost GPU, a missing mount) gets no extra PASS from the rules.
            Set<String> judgedByProbe = new HashSet<>();
            result.findings().forEach(f -> judgedByProbe.add(f.entity()));
            for (Observation o : result.observations()) {
                Finding judged = rules.judge(o, check);
                if (judged.severity() != Severity.PASS || !judgedByProbe.contains(o.entity())) {
                    out.add(judged);
                }
            }
        }
        for (Finding f : result.findings()) {
            out.add(probeFinding(f, check));
        }
        // No observation and no finding: nothing to say; the engine counts an empty list as a pass.
        return Hysteresis.apply(check.forRuns(), out, memory);
    }

    @Override
    public Set<String> fieldsRead(CheckConfig check, ProbeSpec spec) {
        CompiledCheck rules = compiledFor(check, spec);
        return rules == null ? Evaluator.super.fieldsRead(check, spec) : rules.fieldsRead();
    }

    private CompiledCheck compiledFor(CheckConfig check, ProbeSpec spec) {
        CompiledCheck c = compiled.get(check);
        if (c != null && (c.spec() == spec || c.spec().equals(spec))) {
            return c;
        }
        c = RuleCompiler.compile(check, spec, new Problems());
        if (c != null) {
            remember(check, c);
        }
        return c;
    }

    private void remember(CheckConfig check, CompiledCheck c) {
        synchronized (compiled) {
            if (compiled.size() >= CACHE_LIMIT) {
                compiled.clear();
            }
            compiled.put(check, c);
        }
    }

    /** Only reachable with a CheckConfig that skipped validation; say so instead of judging wrongly. */
    private static Finding invalid(CheckConfig check, ProbeSpec spec) {
        Problems p = new Problems();
        RuleCompiler.compile(check, spec, p);
        String why = p.list().stream().map(Object::toString).collect(Collectors.joining("; "));
        return new Finding(check.name(), "node", Severity.UNKNOWN, "the check's rules are invalid: " + why, Remedy.NONE, null, Map.of());
    }

    /** The probe decided this itself; the check's remedy and slurm_state, when set, override it on FAIL findings. */
    private static Finding probeFinding(Finding f, CheckConfig check) {
        Finding out = f.withCheck(check.name());
        if (out.severity() == Severity.FAIL) {
            if (check.remedy() != null) {
                out = out.withRemedy(check.remedy());
            }
            if (check.slurmState() != null) {
                out = out.withSlurmState(check.slurmState());
            }
        }
        return out;
    }
}
