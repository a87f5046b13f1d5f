package dev.nhc.checks.host;

import dev.nhc.engine.config.ConfigException;
import dev.nhc.engine.config.ConfigProblem;
import dev.nhc.engine.config.Location;
import dev.nhc.rules.testing.Pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** A check the real config loader must refuse, with its one problem placed at the offending value. */
final class ConfigErrors {
    /** Pipeline's config has its first check on this line. */
    private static final int FIRST_CHECK_LINE = 7;

    private ConfigErrors() {
    }

    /**
     * Plans {@code check}, one line of YAML such as {@code "- { name: d, use: disk.usage, with: { mount: x } }"},
     * and returns the problem's message, asserting it is the only problem and points at {@code value}.
     */
    static String at(Pipeline pipeline, String check, String value) {
        ConfigException e = assertThrows(ConfigException.class, () -> pipeline.plan(check));
        assertEquals(1, e.problems().size(), e.getMessage());
        ConfigProblem problem = e.problems().get(0);
        // The check is indented by two spaces in Pipeline's config; columns count from 1.
        assertEquals(new Location("nhc.yaml", FIRST_CHECK_LINE, check.indexOf(value) + 3), problem.location(), problem.toString());
        return problem.message();
    }
}
