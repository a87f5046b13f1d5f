package dev.nhc.engine.config;

import dev.nhc.engine.plan.ConfigLoader;
import dev.nhc.engine.plan.ProbeRegistry;
import dev.nhc.engine.testing.PassThroughRules;
import dev.nhc.engine.testing.ScriptedProbe;
import dev.nhc.engine.testing.TrustFixtures;
import dev.nhc.probe.ParamSpec;
import dev.nhc.probe.ProbeResult;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.units.Unit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The trust rule at config load: as root, every value that names a file nhc runs, loads or appends
 * to is refused with its file:line:column when someone else could change that file.
 */
class TrustedValuesTest {
    @TempDir
    Path tmp;
    private Path dir;
    private Path user;
    private Path marker;

    private final ConfigLoader loader = new ConfigLoader(new ProbeRegistry(List.of(new ScriptedProbe(
            ProbeSpec.builder("runs", "a probe that runs a command")
                    .param(ParamSpec.texts("command", "argv").names(ParamSpec.PathUse.RUN))
                    .param(ParamSpec.text("tool", "a program").names(ParamSpec.PathUse.RUN))
                    .field("value", Unit.COUNT, "nothing").build(),
            ctx -> ProbeResult.of()))), new PassThroughRules(), List.of());

    @BeforeEach
    void files() throws Exception {
        TrustFixtures.assumeRoot();
        dir = TrustFixtures.rootOnly(tmp);
        user = dir.resolve("home-user");
        marker = dir.resolve("ran");
        TrustFixtures.script(user.resolve("check.sh"), "touch " + marker);
        Files.writeString(user.resolve("libnvidia-ml.so.1"), "\177ELF");
        TrustFixtures.nobodys(user);
    }

    private ConfigException refused(String yaml) throws Exception {
        Path f = Files.writeString(dir.resolve("nhc.yaml"), yaml);
        return assertThrows(ConfigException.class, () -> loader.load(f));
    }

    private static void assertAt(ConfigException e, int line, int column, String message) {
        assertTrue(e.problems().stream().anyMatch(p -> p.location().line() == line && p.location().column() == column
                && p.message().equals(message)), "expected " + line + ":" + column + " " + message + " in:\n" + e.getMessage());
    }

    @Test
    void everyPathKindInTheConfigIsRefusedAtItsPlace() throws Exception {
        String why = "directory " + user + " is owned by uid 65534, not root";
        ConfigException e = refused("""
                nhc: 1
                settings:
                  nvml_library: %1$s/libnvidia-ml.so.1
                  dcgmi: %1$s/check.sh
                  log_file: %1$s/nhc.log
                checks:
                  - name: sh
                    use: runs
                    with: { command: [/bin/sh, -c, "exec %1$s/check.sh"] }
                  - name: py
                    use: runs
                    with: { command: [python3, -c, "exec(open('%1$s/c.py').read())"], tool: %1$s/check.sh }
                  - { name: off, use: runs, enabled: false, with: { command: [%1$s/check.sh] } }
                """.formatted(user));
        assertAt(e, 3, 17, "'nvml_library' in settings: refusing to load " + user + "/libnvidia-ml.so.1 as root: " + why
                + "; running as root, nhc runs and loads only files that only root can change");
        assertAt(e, 4, 10, "'dcgmi' in settings: refusing to run " + user + "/check.sh as root: " + why
                + "; running as root, nhc runs and loads only files that only root can change");
        assertAt(e, 5, 13, "'log_file' in settings: refusing to write to " + user + "/nhc.log as root: " + why
                + "; running as root, nhc writes only to files that only root can change");
        assertAt(e, 9, 22, "'command' in check 'sh' (runs) with: refusing to run /bin/sh as root: " + why
                + "; running as root, nhc runs and loads only files that only root can change");
        assertAt(e, 12, 22, "'command' in check 'py' (runs) with: refusing to run python3 as root: " + why
                + "; running as root, nhc runs and loads only files that only root can change");
        assertTrue(e.problems().stream().anyMatch(p -> p.location().line() == 12 && p.message().startsWith("'tool' in check 'py'")), e.getMessage());
        assertEquals(6, e.problems().size(), "a check that is not enabled runs nothing: " + e.getMessage());
        assertTrue(Files.notExists(marker), "nothing ran");
    }

    @Test
    void aHardLinkedOrSymlinkedLogFileOrOneInAStickyDirectoryIsRefused() throws Exception {
        Path shadow = Files.writeString(dir.resolve("shadow"), "root:x\n");
        Files.createLink(dir.resolve("hard.log"), shadow);
        Files.createSymbolicLink(dir.resolve("soft.log"), shadow);
        Path sticky = Files.createDirectories(dir.resolve("tmp"));
        Files.setAttribute(sticky, "unix:mode", 01777);
        for (String log : List.of("hard.log", "soft.log", "tmp/nhc.log")) {
            ConfigException e = refused("nhc: 1\nsettings: { log_file: " + dir.resolve(log) + " }\nchecks:\n  - { name: a, use: runs }\n");
            assertEquals(1, e.problems().size(), e.getMessage());
            assertTrue(e.problems().get(0).message().startsWith("'log_file' in settings: refusing to write to " + dir.resolve(log) + " as root: "),
                    e.getMessage());
            assertEquals(2, e.problems().get(0).location().line());
        }
        assertEquals("root:x\n", Files.readString(shadow));
    }

    @Test
    void whatIsNotThereIsTheRunsFindingAndRootsOwnFilesAreFine() throws Exception {
        Path f = Files.writeString(dir.resolve("nhc.yaml"), """
                nhc: 1
                settings: { nvml_library: %1$s/none/libnvidia-ml.so.1, log_file: %1$s/nhc.log, dcgmi: /usr/bin/nhc-no-dcgmi }
                checks:
                  - { name: a, use: runs, with: { command: [/bin/sh, -c, "exec /bin/true %1$s/nhc.yaml"], tool: nhc-no-such-tool } }
                """.formatted(dir));
        loader.load(f);
    }

    @Test
    void notAsRootNothingIsHeldToTheRule() throws Exception {
        Path f = Files.writeString(dir.resolve("nhc.yaml"), "nhc: 1\nsettings: { nvml_library: " + user
                + "/libnvidia-ml.so.1 }\nchecks:\n  - { name: a, use: runs, with: { command: [" + user + "/check.sh] } }\n");
        loader.enforceOwnership(false).load(f);
    }
}
