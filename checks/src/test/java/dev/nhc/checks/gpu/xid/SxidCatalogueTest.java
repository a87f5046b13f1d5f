package dev.nhc.checks.gpu.xid;

import dev.nhc.model.Remedy;
import org.junit.jupiter.api.Test;

import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The shipped SXid catalogue against nhc's mapping of the Fabric Manager User Guide's classes. */
class SxidCatalogueTest {
    private final SxidCatalogue catalogue = SxidCatalogue.get();

    @Test
    void theResourcesMappingBlockIsTheCodesMapping() {
        assertEquals(XidCatalogueTest.strip(SxidCatalogue.mappingText()), XidCatalogueTest.strip(catalogue.file().mapping()),
                "the mapping block of " + catalogue.file().name() + " must read:\n"
                        + SxidCatalogue.mappingText().stream().map(l -> "# " + l).collect(Collectors.joining("\n")));
        String header = String.join("\n", catalogue.file().comments());
        assertTrue(header.contains("fabric-manager-user-guide.pdf") && header.matches("(?s).*DU-09883-001_v\\S+.*"), header);
        assertTrue(header.matches("(?s).*leptonai/gpud \\S+ @ [0-9a-f]{40}.*"), header);
    }

    @Test
    void theGuidesClassesDecideAndTheLinesFatalWinsWhenStricter() {
        // 12028 "egress nonposted PRIV error": non-fatal in the guide
        assertFalse(catalogue.fatal(12028, Boolean.FALSE));
        assertTrue(catalogue.fatal(12028, Boolean.TRUE), "the driver said Fatal for this instance");
        // 11013 "ingress header DBE": fatal in the guide whatever the line says
        assertTrue(catalogue.fatal(11013, null));
        assertEquals(Remedy.RESET_GPU, catalogue.remedy(11013));
        // an SXid the guide does not list is what its line says
        assertFalse(catalogue.fatal(99999, null));
        assertTrue(catalogue.fatal(99999, Boolean.TRUE));
    }

    @Test
    void alwaysFatalSxidsAskForTheHostToBeRestarted() {
        long always = catalogue.entry(10003).stream().filter(e -> e.kind() == SxidCatalogue.Kind.ALWAYS_FATAL).count();
        assertEquals(1, always, "10003 Host_unhandled_interrupt is always fatal");
        assertEquals(Remedy.REBOOT, catalogue.remedy(10003));
        assertEquals("SXid 20034 (LTSSM Fault Up)", catalogue.name(20034));
    }
}
