package dev.nhc.slurm;

import dev.nhc.engine.action.VerdictAction;
import dev.nhc.engine.config.Config;
import dev.nhc.engine.config.ConfigException;
import dev.nhc.engine.plan.ConfigLoader;
import dev.nhc.engine.config.ConfigSection;
import dev.nhc.engine.config.Problems;
import dev.nhc.engine.testing.PassThroughRules;
import dev.nhc.engine.testing.ScriptedProbe;
import dev.nhc.model.Finding;
import dev.nhc.model.SlurmState;
import dev.nhc.engine.plan.ProbeRegistry;
import dev.nhc.probe.ProbeResult;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.engine.state.StateSection;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SlurmSectionTest {
    private static ConfigLoader loader() {
        List<ConfigSection> sections = ServiceLoader.load(ConfigSection.class).stream().map(ServiceLoader.Provider::get).toList();
        // A config needs a check (an empty one would pass every node); the section is what these tests are about.
        ProbeRegistry probes = new ProbeRegistry(List.of(new ScriptedProbe("test.ok", false, ctx -> ProbeResult.of())));
        return new ConfigLoader(probes, new PassThroughRules(), sections).enforceOwnership(false);
    }

    @Test
    void theSectionAndTheActionAreFoundByServiceLoader() {
        assertTrue(ServiceLoader.load(ConfigSection.class).stream().anyMatch(p -> p.type() == SlurmSection.class));
        assertTrue(ServiceLoader.load(VerdictAction.class).stream().map(ServiceLoader.Provider::get)
                .anyMatch(a -> a.name().equals("slurm") && a instanceof SlurmAction));
    }

    @Test
    void aSlurmSectionLoadsWithTypesAndDefaults() throws ConfigException {
        Config c = loader().parse("nhc.yaml", """
                nhc: 1
                slurm:
                  failure_state: fail
                  resume_after: 3
                  command_timeout: 2s
                  slurm_conf: /srv/slurm.conf
                checks: [ { name: ok, use: test.ok } ]
                """, Path.of("nhc.yaml")).config();
        SlurmSettings s = SlurmSettings.from(c.section("slurm"), Map.of());
        assertEquals(SlurmState.FAIL, s.failureState());
        assertEquals(3, s.resumeAfter());
        assertEquals(0.5, s.maxDrainedFraction());
        assertEquals(Duration.ofSeconds(2), s.commandTimeout());
        assertEquals(2, s.retries());
        assertEquals(Path.of("/srv/slurm.conf"), s.slurmConf());
    }

    @Test
    void anUnknownKeyIsAnErrorWithItsLineAndASuggestion() {
        ConfigException e = assertThrows(ConfigException.class, () -> loader().parse("nhc.yaml", """
                nhc: 1
                slurm:
                  resume_afer: 3
                checks: [ { name: ok, use: test.ok } ]
                """, Path.of("nhc.yaml")));
        assertTrue(e.getMessage().contains("nhc.yaml:3:3") && e.getMessage().contains("resume_after"), e.getMessage());
    }

    @Test
    void badValuesAreConfigErrorsWithTheirLocation() {
        ConfigException e = assertThrows(ConfigException.class, () -> loader().parse("nhc.yaml", """
                nhc: 1
                slurm:
                  failure_state: reboot
                  max_drained_fraction: 2
                  scontrol: scontrol
                checks: [ { name: ok, use: test.ok } ]
                """, Path.of("nhc.yaml")));
        String m = e.getMessage();
        assertTrue(m.contains("nhc.yaml:3:18") && m.contains("failure_state") && m.contains("'reboot' is not one of drain, fail"), m);
        assertTrue(m.contains("nhc.yaml:4:25") && m.contains("max_drained_fraction"), m);
        assertTrue(m.contains("nhc.yaml:5:13") && m.contains("absolute path"), m);
    }

    @Test
    void outOfRangeValuesAreRefusedWhenTheConfigLoadsNamingTheKey() {
        ConfigException e = assertThrows(ConfigException.class, () -> loader().parse("nhc.yaml", """
                nhc: 1
                slurm:
                  resume_after: 0
                  retries: 11
                  command_timeout: 55s
                checks: [ { name: ok, use: test.ok } ]
                """, Path.of("nhc.yaml")));
        String m = e.getMessage();
        assertTrue(m.contains("nhc.yaml:3:17") && m.contains("resume_after") && m.contains("between 1 and 1000"), m);
        assertTrue(m.contains("nhc.yaml:4:12") && m.contains("retries"), m);
        assertTrue(m.contains("nhc.yaml:5:20") && m.contains("at most 50s"), m);
    }

    @Test
    void scontrolIsFoundWithoutPath() {
        Path p = SlurmSettings.locate(null, "scontrol", Map.of(), false);
        assertTrue(SlurmSettings.BIN_DIRS.contains(p.getParent().toString()), p.toString());
        assertEquals(Path.of("/opt/x/scontrol"), SlurmSettings.locate("/opt/x/scontrol", "scontrol", Map.of(), true));
    }

    @Test
    void asRootAConfiguredToolOthersCouldChangeIsAConfigErrorAtItsPlace(@org.junit.jupiter.api.io.TempDir Path tmp) throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(dev.nhc.engine.config.Ownership.runningAsRoot(),
                "the rule applies when nhc runs as root, and only root can make another user's files (CI runs as root)");
        Path user = java.nio.file.Files.createDirectories(tmp.toRealPath().resolve("user"));
        java.nio.file.Files.setPosixFilePermissions(tmp.toRealPath(), java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        Path scontrol = java.nio.file.Files.writeString(user.resolve("scontrol"), "#!/bin/sh\n");
        java.nio.file.Files.setPosixFilePermissions(scontrol, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        java.nio.file.Files.setAttribute(user, "unix:uid", 65534);
        ConfigException e = assertThrows(ConfigException.class, () -> loader().enforceOwnership(true).parse("nhc.yaml",
                "nhc: 1\nslurm:\n  scontrol: " + scontrol + "\n  sinfo: " + user + "/sinfo\nchecks: [ { name: ok, use: test.ok } ]\n",
                Path.of("nhc.yaml")));
        String why = " as root: directory " + user + " is owned by uid 65534, not root; running as root, nhc runs and loads only files that"
                + " only root can change";
        assertEquals("nhc.yaml:3:13: 'scontrol' in slurm: refusing to run " + scontrol + why + "\n"
                + "nhc.yaml:4:10: 'sinfo' in slurm: refusing to run " + user + "/sinfo" + why, e.getMessage(),
                "a sinfo not there yet, where the user could put one, is refused too");
    }
}
