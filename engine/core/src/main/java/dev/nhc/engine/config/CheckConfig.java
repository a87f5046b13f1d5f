package dev.nhc.engine.config;

import dev.nhc.model.Remedy;
import dev.nhc.model.SlurmState;
import dev.nhc.probe.Params;

import java.time.Duration;

/**
 * One entry of {@code checks:}. {@code warn}/{@code fail} are the raw condition nodes (null: the
 * probe's defaults apply), compiled by the rules module. {@code remedy}, {@code slurmState},
 * {@code onUnknown}, {@code timeout} and {@code every} are null when not set.
 */
public record CheckConfig(String name, String use, Location location, HostSelector on, Params with,
                          ConfigNode warn, ConfigNode fail, String message, Remedy remedy, SlurmState slurmState,
                          int forRuns, OnUnknown onUnknown, Duration timeout, Duration every, ConfigNode node) {

    public Duration timeoutOr(Duration fallback) {
        return timeout != null ? timeout : fallback;
    }
}
