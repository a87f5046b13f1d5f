package dev.nhc.engine.config;

import dev.nhc.engine.probe.ParamSpec;

import java.util.List;

/**
 * A top-level config section owned by an integration ({@code slurm:}, {@code dstack:}), found by
 * ServiceLoader so that the engine validates its keys without knowing any scheduler.
 */
public interface ConfigSection {
    String key();

    String description();

    List<ParamSpec> params();
}
