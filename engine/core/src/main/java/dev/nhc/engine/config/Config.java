package dev.nhc.engine.config;

import dev.nhc.probe.Params;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A loaded, validated config. Sections of integrations are kept as converted {@link Params}
 * (defaults included, for every section nhc knows); {@code written} names the sections the file
 * actually has, which is how an integration knows it was asked for.
 */
public record Config(Path file, Settings settings, Map<String, List<String>> hostgroups, List<CheckConfig> checks,
                     Map<String, Params> sections, Set<String> written) {

    public Config {
        hostgroups = Map.copyOf(hostgroups);
        checks = List.copyOf(checks);
        sections = Map.copyOf(sections);
        written = Set.copyOf(written);
    }

    public Params section(String key) {
        return sections.getOrDefault(key, Params.empty());
    }

    /** Whether the config file has this top-level section ({@code slurm:}, {@code dstack:}). */
    public boolean hasSection(String key) {
        return written.contains(key);
    }

    public Optional<CheckConfig> check(String name) {
        return checks.stream().filter(c -> c.name().equals(name)).findFirst();
    }

    public Config withSettings(Settings s) {
        return new Config(file, s, hostgroups, checks, sections, written);
    }

    public Config withChecks(List<CheckConfig> c) {
        return new Config(file, settings, hostgroups, c, sections, written);
    }
}
