package dev.nhc.engine.config;

import dev.nhc.probe.ParamSpec;

import java.util.List;

/**
 * A top-level config section owned by an integration ({@code slurm:}, {@code dstack:}), found by
 * ServiceLoader so that the engine validates its keys without knowing any scheduler.
 */
public interface ConfigSection {
    String key();

    String description();

    List<ParamSpec<?>> params();

    /**
     * Checks the converted values beyond their types (ranges, allowed words), so that a bad value is
     * a config error with its location instead of a surprise at run time.
     *
     * @param node the section as written, or null when the config has none (defaults only)
     */
    default void validate(dev.nhc.probe.Params values, ConfigNode node, Problems problems) {
    }
}
