package dev.nhc.cli;

import dev.nhc.engine.config.Config;
import dev.nhc.engine.config.Settings;
import dev.nhc.engine.probe.Params;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/** Command-line options that override settings (command line beats config file). */
final class Overrides {
    private Overrides() {
    }

    static Config apply(Config cfg, Path nvmlLibrary, Path stateDir) {
        if (nvmlLibrary == null && stateDir == null) {
            return cfg;
        }
        Map<String, Object> values = new LinkedHashMap<>(cfg.settings().values().asMap());
        if (nvmlLibrary != null) {
            values.put("nvml_library", nvmlLibrary.toString());
        }
        if (stateDir != null) {
            values.put("state_dir", stateDir.toString());
        }
        return new Config(cfg.file(), new Settings(new Params(values)), cfg.hostgroups(), cfg.checks(), cfg.sections());
    }
}
