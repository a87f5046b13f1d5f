package dev.nhc.checks.gpu.xid;

import dev.nhc.checks.gpu.xid.Nvlink5Decode.Decision;
import dev.nhc.checks.kernel.KernelLogLine;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * NVIDIA's NVLink5 decode table (XIDs 144-150) as shipped, and nhc's decisions on real lines. The
 * lines are from leptonai/gpud: pull requests 1160 and 1174 (their descriptions quote kmsg lines of
 * GB200 nodes), components/accelerator/nvidia/xid/kmsg_test.go and kmsg_extended_test.go @
 * 4a8de33a3f02e207f39e9023d67125592d599731 (lines of nodes with a process named in them).
 */
class Nvlink5DecodeTest {
    private final Nvlink5Decode table = Nvlink5Decode.get();

    private static Nvlink5Decode.Decoded decode(String line) {
        XidEvent e = XidEvent.parse(new KernelLogLine(1, null, 1.0, line, KernelLogLine.Origin.KERNEL)).orElseThrow();
        return Nvlink5Decode.decode(e.code(), e.text()).orElseThrow(() -> new AssertionError("no NVLink5 tail: " + line));
    }

    @Test
    void theTableIsNvidiasDecodeWithItsSourceAndEveryRowIsFoundByItsOwnBits() {
        String header = String.join("\n", table.file().comments());
        assertTrue(header.contains("sheet \"XID 144-150 Decode\""), header);
        assertTrue(header.contains("https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html"), header);
        assertTrue(header.matches("(?s).*leptonai/gpud \\S+ \\(nvlinkRules\\) @ [0-9a-f]{40} \\d{4}-\\d\\d-\\d\\d.*"), header);
        assertEquals(94, table.rows().size(), "gpud's transcription has 94 rows; a new one is regenerated, not hand-edited");
        assertEquals(List.of(144, 145, 146, 147, 148, 149, 150), table.rows().stream().map(Nvlink5Decode.Row::xid).distinct().toList());
        for (Nvlink5Decode.Row r : table.rows()) {
            for (String pattern : List.of(r.intrinfoV1(), r.intrinfoV2())) {
                long sample = Long.parseLong(pattern.replace('-', '0'), 2);
                Nvlink5Line line = new Nvlink5Line(r.unit().split("/")[0], false, sample, r.errorStatus());
                Nvlink5Decode.Row found = table.row(r.xid(), line).orElseThrow(() -> new AssertionError("no row for " + r));
                assertEquals(r.resets(), found.resets(), r + " is found as " + found);
                assertEquals(r.ignorable(), found.ignorable(), r + " is found as " + found);
            }
        }
    }

    @Test
    void onlyRowsNvidiaCallsNonFatalWithNoActionAreIgnorableAndEveryResetRowIsFatal() {
        for (Nvlink5Decode.Row r : table.rows()) {
            if (r.ignorable()) {
                assertEquals("IGNORE", r.resolution());
                assertEquals("Non-fatal", r.severity());
            }
            assertFalse(r.ignorable() && r.resets(), r.toString());
        }
        assertEquals(41, table.rows().stream().filter(Nvlink5Decode.Row::resets).count());
        assertEquals(40, table.rows().stream().filter(Nvlink5Decode.Row::ignorable).count(),
                "the 45 IGNORE rows less the three marked Non-fatal* with a second action, one Link Fatal and one Fatal");
    }

    @Test
    void theResourcesMappingBlockIsTheCodesAndTheDesignDocSaysIt() throws Exception {
        assertEquals(XidCatalogueTest.strip(Nvlink5Decode.mappingText()), XidCatalogueTest.strip(table.file().mapping()),
                "the mapping block of " + table.file().name() + " must read:\n"
                        + Nvlink5Decode.mappingText().stream().map(l -> "# " + l).collect(Collectors.joining("\n")));
        String doc = Files.readString(Path.of(System.getProperty("user.dir")).resolveSibling("docs/DESIGN.md"));
        for (String line : Nvlink5Decode.mappingText()) {
            assertTrue(doc.contains(line.strip()), "docs/DESIGN.md lacks the mapping line: " + line.strip());
        }
    }

    /** gpud PR 1160: "SAW_MVB Nonfatal … (0x00000001 0x00000008 …)": NVIDIA's row says IGNORE, Non-fatal. */
    @Test
    void aNonFatalSawMvbStatusTheTableIgnoresIsIgnored() {
        Nvlink5Decode.Decoded d = decode("NVRM: Xid (PCI:0000:01:00): 144, SAW_MVB Nonfatal XC0 i0 Link 0 "
                + "(0x00000001 0x00000008 0x00000000 0x00000000 0x00000000 0x00000000)");
        assertEquals(Decision.IGNORE, d.decision());
        assertEquals("SAW_MVB status 0x00000008: NVIDIA IGNORE, CONTACT_SUPPORT", d.row().orElseThrow().describe());
    }

    /** gpud PR 1174 and kmsg_extended_test.go: RLW_RXPIPE status 0x8, with and without a process named in the line. */
    @Test
    void aNonFatalRxPipeStatusTheTableIgnoresIsIgnoredWhateverTheProcessIsCalled() {
        assertEquals(Decision.IGNORE, decode("NVRM: Xid (PCI:0018:01:00): 145, RLW_RXPIPE Nonfatal XC0 i0 Link 13 "
                + "(0x0409a0c2 0x00000008 0x00000001 0x00000000 0x00100000 0x00000004)").decision());
        assertEquals(Decision.IGNORE, decode("NVRM: Xid (PCI:0018:01:00): 145, pid=876767, name=ray::WorkerDict, RLW_RXPIPE Nonfatal XC0 "
                + "i0 Link 13 (0x0409a0c2 0x00000008 0x00000001 0x00000000 0x00100000 0x00000004)").decision());
    }

    /** kmsg_extended_test.go: RLW_SRC_TRACK status 0x8 is XID_154_EVAL: the driver says with XID 154 whether it wants a reset. */
    @Test
    void aStatusWhoseActionIsToWatchForXid154Warns() {
        Nvlink5Decode.Decoded d = decode("NVRM: Xid (PCI:0008:01:00): 145, pid=11436, name=cache_mgr_main, RLW_SRC_TRACK Nonfatal XC1 i0 "
                + "Link 03 (0x040868e2 0x00000008 0x00000000 0x00000000 0x00000000 0x00000000)");
        assertEquals("XID_154_EVAL", d.row().orElseThrow().resolution());
        assertEquals(Decision.WARNING, d.decision());
    }

    /** gpud PR 1174: "NETIR Fatal … Link -1 (0x000fe406 …)": NETIR_INT, RESET_GPU. */
    @Test
    void aFatalNetirInterruptIsFatalAndTheTableSaysReset() {
        Nvlink5Decode.Decoded d = decode("NVRM: Xid (PCI:0019:01:00): 149, NETIR Fatal XC0 i0 Link -1 "
                + "(0x000fe406 0x00000000 0x00000000 0x00000000 0x00000000 0x00000000)");
        assertEquals(Decision.FATAL, d.decision());
        assertEquals("NETIR/NETIR_INT", d.row().orElseThrow().unit());
        assertTrue(d.row().orElseThrow().resets());
    }

    /**
     * gpud PR 1160: NETIR_LINK_EVT subcode 38 — NVIDIA's row says IGNORE (INVESTIGATE_SW/USER) with
     * severity "Link Fatal": the link is down until the GPU is reset, and the driver says Fatal, so it stays fatal.
     */
    @Test
    void aLinkTheDriverCallsFatalStaysFatalWhenTheRowsActionIsIgnore() {
        Nvlink5Decode.Decoded d = decode("NVRM: Xid (PCI:0000:00:00): 149, NETIR_LINK_EVT Fatal XC0 i0 Link 00 "
                + "(0x026001c6 0x00000000 0x00000000 0x00000000 0x00000000 0x00000000)");
        Nvlink5Decode.Row row = d.row().orElseThrow();
        assertEquals("IGNORE", row.resolution());
        assertEquals("Link Fatal", row.severity());
        assertEquals(Decision.FATAL, d.decision());
    }

    @Test
    void aNonFatalLineWhoseRowResetsIsFatalAndOneWithASecondActionWarns() {
        // the table's own rows, as a Nonfatal line would carry them: SAW_MVB 0x2 (RESET_GPU), RLW_RXPIPE 0x1 (Non-fatal*, then RESET_GPU)
        assertEquals(Decision.FATAL, decode("NVRM: Xid (PCI:0000:01:00): 144, SAW_MVB Nonfatal XC0 i0 Link 0 (0x00000001 0x00000002)").decision());
        Nvlink5Decode.Decoded rx = decode("NVRM: Xid (PCI:0018:01:00): 145, RLW_RXPIPE Nonfatal XC0 i0 Link 13 (0x0409a0c2 0x00000001)");
        assertEquals("RESET_GPU", rx.row().orElseThrow().action2());
        assertEquals(Decision.WARNING, rx.decision());
    }

    @Test
    void aLineTheTableHasNoRowForIsJudgedByItsOwnWord() {
        Nvlink5Decode.Decoded one = decode("NVRM: Xid (PCI:0009:01:00): 149, NETIR_LINK_EVT  Non-fatal   XC0 i0 Link 02 (0x0)");
        assertTrue(one.row().isEmpty(), "one register: no error status to decode");
        assertEquals(Decision.WARNING, one.decision());
        Nvlink5Decode.Decoded other = decode("NVRM: Xid (PCI:0028:01:00): 145, pid=11438, name=ok, RLW_REMAP Fatal XC1 i0 Link 04 "
                + "(0x040868e2 0x00000040)");
        assertTrue(other.row().isEmpty(), "RLW_SRC_TRACK's bits under another unit's name");
        assertEquals(Decision.FATAL, other.decision());
    }

    @Test
    void theListingNamesTheSourceAndHasOneLinePerRow() {
        List<String> lines = table.listing();
        assertTrue(lines.stream().anyMatch(l -> l.contains("analyzing-xid-catalog.html")), String.join("\n", lines));
        assertTrue(lines.stream().anyMatch(l -> l.matches("\\s+144\\s+SAW_MVB\\s+0x00000008\\s+ignore\\s+IGNORE\\s+Non-fatal\\s+.*")),
                String.join("\n", lines));
        assertEquals(table.rows().size(), lines.stream().filter(l -> l.matches("\\s+1[45]\\d\\s.*")).count());
    }
}
