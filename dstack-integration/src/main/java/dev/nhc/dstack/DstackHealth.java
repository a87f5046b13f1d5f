package dev.nhc.dstack;

import dev.nhc.model.Severity;

import java.util.EnumMap;
import java.util.Map;

/**
 * dstack's health values (DCGM's 0 healthy, 10 warning, 20 failure) for nhc's severities: the
 * dstack column of docs/DESIGN.md's table, as a mapping in the module that answers dstack. The way
 * back reads the shim's own DCGM values as severities, so that the proxy's answer is aggregated by
 * the engine's severity order like everything else.
 */
final class DstackHealth {
    static final int HEALTHY = 0;
    static final int WARNING = 10;
    static final int FAILURE = 20;

    private static final Map<Severity, Integer> BY_SEVERITY = new EnumMap<>(Map.of(
            Severity.PASS, HEALTHY, Severity.WARN, WARNING, Severity.UNKNOWN, WARNING, Severity.FAIL, FAILURE));

    private DstackHealth() {
    }

    /**
     * dstack's value for a settled severity. A finding that is still UNKNOWN here was kept so by its
     * check's {@code on_unknown}: the config's default must not overrule that a second time.
     */
    static int of(Severity s) {
        return BY_SEVERITY.get(s);
    }

    /** The severity of a DCGM health value (one of the three: the shim's answer was validated first). */
    static Severity severity(int value) {
        return switch (value) {
            case HEALTHY -> Severity.PASS;
            case WARNING -> Severity.WARN;
            case FAILURE -> Severity.FAIL;
            default -> throw new IllegalArgumentException("not a DCGM health value: " + value);
        };
    }

    static boolean isHealth(long value) {
        return value == HEALTHY || value == WARNING || value == FAILURE;
    }
}
