package dev.nhc.engine.eval;

import dev.nhc.engine.config.CheckConfig;
import dev.nhc.engine.config.Problems;
import dev.nhc.model.Finding;
import dev.nhc.probe.FieldSpec;
import dev.nhc.probe.ProbeResult;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.engine.state.StateSection;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.ServiceLoader;

/**
 * Turns observations into findings by rules. The engine knows only this interface; the
 * {@code rules} module implements it and is found by ServiceLoader.
 */
public interface Evaluator {

    /** Checks a check's {@code warn:}, {@code fail:} and {@code message:} against its probe at load time, adding every problem with its location. */
    void validate(CheckConfig check, ProbeSpec spec, Problems problems);

    /**
     * Judges one probe result: the check's rules (or the probe's defaults) per observation, plus
     * the probe's own findings. {@code memory} holds what {@code for: N} needs between runs. Returns
     * one finding per entity, PASS included, each with the check's name set.
     */
    List<Finding> evaluate(CheckConfig check, ProbeSpec spec, ProbeResult result, StateSection memory);

    /**
     * The observation fields the check's rules test or its messages print, so that a probe can
     * leave out a field that costs extra to read when nothing reads it (see
     * {@link dev.nhc.probe.ProbeContext#fieldWanted}). By default every field of the probe.
     */
    default Set<String> fieldsRead(CheckConfig check, ProbeSpec spec) {
        Set<String> all = new LinkedHashSet<>();
        for (FieldSpec f : spec.fields()) {
            all.add(f.name());
        }
        return all;
    }

    static Evaluator load() {
        return ServiceLoader.load(Evaluator.class, Evaluator.class.getClassLoader()).findFirst()
                .orElseThrow(() -> new IllegalStateException("no rules engine on the class path (nhc-rules jar missing)"));
    }
}
