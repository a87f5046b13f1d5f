package dev.nhc.checks.gpu;

import dev.nhc.engine.config.ConfigException;
import dev.nhc.engine.plan.ConfigLoader;
import dev.nhc.engine.plan.ProbeRegistry;
import dev.nhc.engine.testing.TrustFixtures;
import dev.nhc.rules.RuleEngine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * As root, a {@code gpu.amd_smi_library} that another user can change is a config error at its
 * place, as {@code settings.nvml_library} is: refused before any run, not found "unavailable" by a
 * run whose {@code gpu.inventory count:} then fails the node for a config mistake.
 */
class GpuSectionTrustTest {
    @TempDir
    Path tmp;

    @Test
    void aUsersAmdSmiLibraryIsRefusedAtLoadWithItsPlace() throws Exception {
        TrustFixtures.assumeRoot();
        Path dir = TrustFixtures.rootOnly(tmp);
        Path user = dir.resolve("home-user");
        Files.createDirectories(user);
        Files.writeString(user.resolve("libamd_smi.so"), "\177ELF");
        TrustFixtures.nobodys(user);
        Path config = Files.writeString(dir.resolve("nhc.yaml"), "nhc: 1\ngpu:\n  amd_smi_library: " + user.resolve("libamd_smi.so")
                + "\nchecks:\n  - { name: gpus, use: gpu.inventory }\n");
        ConfigLoader loader = new ConfigLoader(ProbeRegistry.load(), new RuleEngine(), List.of(new GpuSection()));

        ConfigException e = assertThrows(ConfigException.class, () -> loader.load(config));

        assertTrue(e.problems().stream().anyMatch(p -> p.location().line() == 3
                && p.message().startsWith("'amd_smi_library' in gpu: refusing to load " + user.resolve("libamd_smi.so") + " as root")),
                e.getMessage());
    }
}
