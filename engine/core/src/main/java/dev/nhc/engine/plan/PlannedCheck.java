package dev.nhc.engine.plan;

import dev.nhc.engine.config.CheckConfig;
import dev.nhc.probe.Probe;
import dev.nhc.probe.ProbeSpec;

import java.time.Duration;

/**
 * One check as it will run: the config entry, the probe it uses, its rules compiled, its time
 * limit and its schedule ({@code every}: null means every run of {@code nhc run}, and every
 * {@code settings.interval} in the daemon).
 */
public record PlannedCheck(CheckConfig check, Probe probe, CompiledRules rules, Duration timeout, Duration every) {

    public String name() {
        return check.name();
    }

    public ProbeSpec spec() {
        return probe.spec();
    }

    /** This check with other settings for its probe's parameters (a replay pointing it at a capture). */
    public PlannedCheck withCheck(CheckConfig c) {
        return new PlannedCheck(c, probe, rules, timeout, every);
    }

    /** How often the daemon runs it. */
    public Duration interval(Duration fallback) {
        return every != null ? every : fallback;
    }
}
