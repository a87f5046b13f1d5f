package dev.nhc.rules;

import dev.nhc.engine.config.CheckConfig;
import dev.nhc.engine.config.Problems;
import dev.nhc.engine.plan.CompiledRules;
import dev.nhc.engine.plan.RulesCompiler;
import dev.nhc.probe.ProbeSpec;

/**
 * The rule language behind the engine's {@link RulesCompiler}: a check's conditions and its probe's
 * default rules, compiled once when the config is loaded (every mistake reported with its place)
 * into the {@link CompiledRules} its planned check keeps.
 */
public final class RuleEngine implements RulesCompiler {

    @Override
    public CompiledRules compile(CheckConfig check, ProbeSpec spec, Problems problems) {
        return RuleCompiler.compile(check, spec, problems);
    }

    /**
     * What a probe's default rules name that its spec does not declare (fields, placeholders,
     * remedy fields, {@code when} parameters), one sentence each; empty when nothing. A check
     * reports these only for the rules that apply to it, so tests run this over every probe.
     */
    public static java.util.List<String> undeclaredNames(ProbeSpec spec) {
        return RuleCompiler.undeclaredNames(spec);
    }
}
