package dev.nhc.engine.config;

import dev.nhc.probe.Params;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** A loaded, validated config. Sections of integrations are kept as converted {@link Params}. */
public record Config(Path file, Settings settings, Map<String, List<String>> hostgroups, List<CheckConfig> checks,
                     Map<String, Params> sections) {

    public Config {
        hostgroups = Map.copyOf(hostgroups);
        checks = List.copyOf(checks);
        sections = Map.copyOf(sections);
    }

    public Params section(String key) {
        return sections.getOrDefault(key, Params.empty());
    }

    public Optional<CheckConfig> check(String name) {
        return checks.stream().filter(c -> c.name().equals(name)).findFirst();
    }
}
