package dev.nhc.engine.plan;

import dev.nhc.engine.config.CheckConfig;
import dev.nhc.engine.config.Problems;
import dev.nhc.probe.ProbeSpec;

/**
 * Compiles a check's rules — its {@code warn:}/{@code fail:}/{@code message:} over its probe's
 * default rules — once, when the config is loaded. The rules module implements it; whoever builds
 * a {@link ConfigLoader} passes one in (it is not optional, so it is not
 * looked up).
 */
public interface RulesCompiler {

    /** The compiled rules, or null after adding every problem found, each with its file:line:column. */
    CompiledRules compile(CheckConfig check, ProbeSpec spec, Problems problems);
}
