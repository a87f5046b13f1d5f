package dev.nhc.dstack;

import dev.nhc.model.Severity;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The dstack column of docs/DESIGN.md's severity table, and the shim's values read back. */
class DstackHealthTest {
    @ParameterizedTest(name = "{0}: dstack {1}")
    @CsvSource({"PASS, 0", "WARN, 10", "UNKNOWN, 10", "FAIL, 20"})
    void theTable(Severity severity, int dstack) {
        assertEquals(dstack, DstackHealth.of(severity));
    }

    @ParameterizedTest(name = "DCGM {0} is {1}")
    @CsvSource({"0, PASS", "10, WARN", "20, FAIL"})
    void theShimsValuesReadAsSeverities(int dcgm, Severity severity) {
        assertEquals(severity, DstackHealth.severity(dcgm));
    }
}
