package dev.nhc.checks.gpu;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

class PciBusIdTest {
    @Test
    void nvmlKernelAndNhcSpellingsMeetInOneForm() {
        assertEquals("0000:3b:00.0", PciBusId.normalize("00000000:3B:00.0"));
        assertEquals("0000:3b:00.0", PciBusId.normalize("0000:3b:00"));
        assertEquals("0000:3b:00.0", PciBusId.normalize(" 3b:00.0 "));
        assertEquals("0001:c1:1f.7", PciBusId.normalize("1:C1:1F.7"));
        assertEquals("10000000:0a:00.1", PciBusId.normalize("10000000:a:0.1"), "domains past 16 bits keep 8 digits");
    }

    @Test
    void whatIsNotABusIdStaysAsWritten() {
        assertEquals("GPU-1234", PciBusId.normalize("GPU-1234"));
        assertNull(PciBusId.normalize("  "));
        assertNull(PciBusId.normalize(null));
    }
}
