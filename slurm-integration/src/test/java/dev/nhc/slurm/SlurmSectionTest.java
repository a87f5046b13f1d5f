package dev.nhc.slurm;

import dev.nhc.engine.action.VerdictAction;
import dev.nhc.engine.config.Config;
import dev.nhc.engine.config.ConfigException;
import dev.nhc.engine.config.ConfigLoader;
import dev.nhc.engine.config.ConfigSection;
import dev.nhc.engine.config.Problems;
import dev.nhc.engine.eval.Evaluator;
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
    /** Configs here have no checks, so the rules engine is never asked. */
    private static final Evaluator NO_RULES = new Evaluator() {
        @Override
        public void validate(dev.nhc.engine.config.CheckConfig check, ProbeSpec spec, Problems problems) {
            throw new UnsupportedOperationException();
        }

        @Override
        public List<Finding> evaluate(dev.nhc.engine.config.CheckConfig check, ProbeSpec spec, ProbeResult result, StateSection memory) {
            throw new UnsupportedOperationException();
        }
    };

    private static ConfigLoader loader() {
        List<ConfigSection> sections = ServiceLoader.load(ConfigSection.class).stream().map(ServiceLoader.Provider::get).toList();
        return new ConfigLoader(new ProbeRegistry(List.of()), NO_RULES, sections).enforceOwnership(false);
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
                checks: []
                """, Path.of("nhc.yaml"));
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
                checks: []
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
                checks: []
                """, Path.of("nhc.yaml")));
        String m = e.getMessage();
        assertTrue(m.contains("nhc.yaml:3:18") && m.contains("failure_state: must be drain or fail, not 'reboot'"), m);
        assertTrue(m.contains("nhc.yaml:4:25") && m.contains("max_drained_fraction"), m);
        assertTrue(m.contains("nhc.yaml:5:13") && m.contains("absolute path"), m);
    }

    @Test
    void outOfRangeValuesAreRefusedNamingTheKey() {
        assertThrows(IllegalArgumentException.class, () -> SlurmSettings.from(new dev.nhc.probe.Params(
                Map.of("max_drained_fraction", 1.5)), Map.of()));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SlurmSettings.from(
                new dev.nhc.probe.Params(Map.of("resume_after", 0L)), Map.of()));
        assertTrue(e.getMessage().contains("resume_after"));
    }

    @Test
    void scontrolIsFoundWithoutPath() {
        Path p = SlurmSettings.locate(null, "scontrol", Map.of());
        assertTrue(SlurmSettings.BIN_DIRS.contains(p.getParent().toString()), p.toString());
        assertEquals(Path.of("/opt/x/scontrol"), SlurmSettings.locate("/opt/x/scontrol", "scontrol", Map.of()));
    }
}
