package dev.nhc.checks.dcgm;

import dev.nhc.checks.dcgm.DcgmErrorCodes.Kind;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The shipped DCGM error-code catalogue against nhc's kinds and DCGM's header. */
class DcgmErrorCodesTest {
    private final DcgmErrorCodes codes = DcgmErrorCodes.get();

    @Test
    void everyCodeFromZeroToTheLastIsPresentOnceWithItsSource() {
        List<Integer> ids = codes.all().stream().map(DcgmErrorCodes.Code::id).toList();
        assertEquals(java.util.stream.IntStream.range(0, ids.size()).boxed().toList(), ids);
        assertTrue(ids.size() >= 133, "DCGM 4.5 has codes 0-132: " + ids.size());
        String header = String.join("\n", codes.file().comments());
        assertTrue(header.matches("(?s).*NVIDIA/DCGM dcgmlib/dcgm_errors\\.h @ [0-9a-f]{40}.*"), header);
    }

    @Test
    void theResourcesMappingBlockIsTheCodesMapping() {
        assertEquals(DcgmErrorCodes.mappingText().stream().map(String::strip).toList(),
                codes.file().mapping().stream().map(String::strip).filter(l -> !l.isEmpty()).toList());
    }

    @Test
    void everyCodesKindFollowsFromDcgmsSeverityAndCategory() {
        for (DcgmErrorCodes.Code c : codes.all()) {
            Kind expected = c.severity().equals("CONFIG") || c.category().equals("SOFTWARE_CONFIG") ? Kind.CONFIGURATION
                    : c.category().startsWith("HARDWARE_") ? Kind.HARDWARE : Kind.OTHER;
            assertEquals(expected, c.kind(), c.name());
        }
        assertEquals(Kind.HARDWARE, codes.code(103).orElseThrow().kind(), "DCGM_FR_DBE_VIOLATION");
        assertEquals(Kind.CONFIGURATION, codes.code(29).orElseThrow().kind(), "DCGM_FR_PERSISTENCE_MODE");
        assertEquals(Kind.OTHER, codes.code(101).orElseThrow().kind(), "DCGM_FR_XID_ERROR is software XID");
    }

    @Test
    void describeNamesTheCodeOrSaysItIsUnknown() {
        assertEquals("DCGM_FR_FALLEN_OFF_BUS, error 120", codes.describe(120));
        assertEquals("DCGM error 4000", codes.describe(4000));
        assertEquals("DCGM error -1", codes.describe(-1));
    }
}
