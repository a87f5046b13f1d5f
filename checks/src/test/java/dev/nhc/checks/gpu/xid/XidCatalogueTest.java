package dev.nhc.checks.gpu.xid;

import dev.nhc.checks.gpu.xid.XidMapping.Impact;
import dev.nhc.model.Remedy;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The shipped XID catalogue against nhc's mapping: every XID of NVIDIA's catalogue is there once,
 * every resolution and DCGM rule in it is one the mapping knows, the resource's mapping block and
 * docs/DESIGN.md say what the code does, and DCGM's stricter rules hold.
 */
class XidCatalogueTest {
    private final XidCatalogue catalogue = XidCatalogue.get();

    private XidMapping.Judgement judgement(int xid) {
        return catalogue.entry(xid).orElseThrow().judgement();
    }

    @Test
    void everyXidOfTheCatalogueIsPresentOnceAndTheDriversNewerOnesAfterIt() {
        List<Integer> xids = catalogue.all().stream().map(XidCatalogue.Entry::xid).toList();
        int last = xids.get(xids.size() - 1);
        assertEquals(java.util.stream.IntStream.rangeClosed(1, last).boxed().toList(), xids, "one row per XID, in order");
        String header = String.join("\n", catalogue.file().comments());
        assertTrue(header.contains("every XID the catalogue lists (1-172)"),
                "NVIDIA's catalogue as transcribed lists XIDs 1-172; a newer one must be regenerated, not hand-edited: " + header);
        assertTrue(header.contains("driver XIDs beyond the catalogue (173-" + last + ")"), header);
        for (XidCatalogue.Entry e : catalogue.all()) {
            if (e.xid() > 172) {
                assertTrue(e.resolution().equals("-") || e.resolution().startsWith(XidMapping.DRIVER),
                        "XID " + e.xid() + " is not NVIDIA's to resolve: - or driver:, not " + e.resolution());
            } else {
                assertFalse(e.resolution().startsWith(XidMapping.DRIVER), "XID " + e.xid() + " has NVIDIA's resolution");
            }
        }
        assertTrue(header.contains("https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html"), header);
        assertTrue(header.matches("(?s).*leptonai/gpud \\S+ @ [0-9a-f]{40}.*"), "the transcription's commit: " + header);
        assertTrue(header.matches("(?s).*NVIDIA/DCGM \\S+ BuildXidMappings @ [0-9a-f]{40}.*"), "DCGM's commit: " + header);
        assertTrue(header.matches("(?s).*NVIDIA/open-gpu-kernel-modules \\S+ @ [0-9a-f]{40}.*"), "the driver's commit: " + header);
    }

    @Test
    void aMemorySubsystemErrorIsFatalByTheDriversOwnHandling() {
        XidCatalogue.Entry e = catalogue.entry(175).orElseThrow();
        assertEquals("MEMORY_SUBSYSTEM_ERROR", e.mnemonic());
        assertEquals(Impact.FATAL, e.judgement().impact());
        assertEquals(Remedy.RESET_GPU, e.judgement().remedy());
    }

    @Test
    void theResourcesMappingBlockIsTheCodesMapping() {
        assertEquals(strip(XidMapping.mappingText()), strip(catalogue.file().mapping()),
                "the mapping block of " + catalogue.file().name() + " must read (copy it there):\n"
                        + XidMapping.mappingText().stream().map(l -> "# " + l).collect(Collectors.joining("\n")));
    }

    @Test
    void designDocStatesTheSameMapping() throws Exception {
        Path design = Path.of(System.getProperty("user.dir")).resolveSibling("docs/DESIGN.md");
        String doc = Files.readString(design);
        for (String line : XidMapping.mappingText()) {
            assertTrue(doc.contains(line.strip()), "docs/DESIGN.md lacks the mapping line: " + line.strip());
        }
    }

    @Test
    void everyEntryIsJudgedByItsResolutionThenByDcgmWhereStricter() {
        for (XidCatalogue.Entry e : catalogue.all()) {
            XidMapping.Judgement byResolution = XidMapping.judge(e.resolution(), XidMapping.DcgmRule.NONE);
            XidMapping.Judgement j = e.judgement();
            assertTrue(XidMapping.knows(e.resolution()), "XID " + e.xid() + ": unknown resolution " + e.resolution());
            if (!e.dcgm().applies()) {
                assertEquals(byResolution, j, "XID " + e.xid() + " has no DCGM rule that applies: its resolution decides");
            } else if (e.dcgm().result().equals("FAIL")) {
                assertEquals(Impact.FATAL, j.impact(), "XID " + e.xid() + ": DCGM fails it");
            } else {
                assertTrue(j.impact() == Impact.FATAL || j.impact() == Impact.WARNING || j.impact() == Impact.BY_LINE,
                        "XID " + e.xid() + ": DCGM warns on it, so it is at least a warning: " + j);
            }
            assertEquals(byResolution.application(), j.application(), "XID " + e.xid() + ": counted per job by its resolution only");
        }
    }

    @Test
    void dcgmsAlwaysFatalXidsAreFatal() {
        for (int xid : List.of(48, 64, 74, 79, 95, 119, 120, 140)) {
            assertEquals(Impact.FATAL, judgement(xid).impact(), "XID " + xid);
        }
    }

    @Test
    void slurmFailIsForTheXidsThatNeedServiceNotJustADrain() {
        Map<Integer, String> slurm = new TreeMap<>();
        catalogue.all().stream().filter(e -> e.judgement().service()).forEach(e -> slurm.put(e.xid(), e.mnemonic()));
        assertEquals(List.of(54, 79, 95), List.copyOf(slurm.keySet()),
                "CHECK_MECHANICALS (54) and DCGM's ISOLATE rules (79 fallen off the bus, 95 uncontained error): " + slurm);
    }

    @Test
    void thePmuHaltTheIssueFoundIsFatalWithAGpuReset() {
        XidMapping.Judgement j = judgement(62);
        assertEquals(Impact.FATAL, j.impact());
        assertEquals(Remedy.RESET_GPU, j.remedy());
    }

    @Test
    void applicationXidsAreCountedPerJobAndThoseDcgmWarnsOnAlsoWarn() {
        assertEquals(Impact.APPLICATION, judgement(13).impact());
        assertTrue(judgement(13).application());
        assertEquals(Impact.WARNING, judgement(31).impact(), "DCGM's memory health warns on 31");
        assertTrue(judgement(31).application(), "31 is still the job's until its GPU sees several jobs");
        assertEquals(Impact.APPLICATION, judgement(45).impact());
        assertEquals(Impact.WARNING, judgement(43).impact(), "NVIDIA: ignore; DCGM's memory health: warn");
        assertFalse(judgement(43).application());
    }

    @Test
    void theNewestXidsWithoutAResolutionWarnAndNvlink5AndRecoveryActionsAreJudgedByTheirLine() {
        assertEquals(Impact.WARNING, judgement(169).impact());
        assertEquals("-", catalogue.entry(169).orElseThrow().resolution());
        for (int xid = 144; xid <= 150; xid++) {
            assertEquals(Impact.BY_LINE, judgement(xid).impact(), "XID " + xid);
        }
        assertEquals(Impact.BY_LINE, judgement(154).impact());
    }

    @Test
    void listingHasOneLinePerXidAndNamesTheSources() {
        List<String> lines = catalogue.listing();
        assertTrue(lines.stream().anyMatch(l -> l.matches("\\s+79\\s+fatal\\s+reboot\\s+fail\\s+RESTART_BM\\s+FAIL ALL\\s+GPU has fallen off the bus")),
                String.join("\n", lines));
        assertTrue(lines.stream().anyMatch(l -> l.contains("analyzing-xid-catalog.html")));
        assertEquals(catalogue.all().size(), lines.stream().filter(l -> l.matches("\\s+\\d+\\s.*")).count());
    }

    static List<String> strip(List<String> lines) {
        return lines.stream().map(String::strip).filter(l -> !l.isEmpty()).toList();
    }
}
