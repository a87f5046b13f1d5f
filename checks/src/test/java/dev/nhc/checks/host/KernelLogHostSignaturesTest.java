package dev.nhc.checks.host;

import dev.nhc.checks.kernel.KernelLogFiles;
import dev.nhc.model.Finding;
import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;
import dev.nhc.model.Verdict;
import dev.nhc.rules.testing.Pipeline;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * kernel.log's default signatures for the host's own faults — uncorrectable memory errors (EDAC,
 * the kernel's memory-failure handling, APEI/GHES) and exhausted file handles — each on real public
 * log lines (verbatim; where a capture had no timestamp nhc reads, the test gives it a dmesg one):
 * <ul>
 *   <li>EDAC UE and GHES: https://github.com/ovro-lwa/lwa-issues/issues/117 (comment by yupinghuang,
 *       2022-05-19: a Skylake server's dmesg, skx_edac)</li>
 *   <li>Memory failure: https://github.com/andikleen/mcelog/issues/74 (comment by aegl: syslog lines of an
 *       injected uncorrectable memory error)</li>
 *   <li>GHES corrected: https://github.com/kubernetes/node-problem-detector/pull/846 (its description's example)</li>
 *   <li>file-max: leptonai/gpud components/os/testdata/dmesg.decode.iso.log @ 4a8de33a3f02e207f39e9023d67125592d599731
 *       (dmesg --decode --time-format iso)</li>
 * </ul>
 */
class KernelLogHostSignaturesTest {
    private static final String KLOG = "- { name: klog, use: kernel.log, with: { log: " + KernelLogFiles.LOG + " } }";

    @TempDir
    Path root;
    private final KernelLogProbe probe = new KernelLogProbe();

    @BeforeEach
    void bootId() throws IOException {
        KernelLogFiles.bootId(root);
    }

    private Verdict run(String lines) throws Exception {
        KernelLogFiles.append(root, lines);
        return new Pipeline(root, probe).run(KLOG);
    }

    private static List<Finding> problems(Verdict v) {
        return Pipeline.findings(v, "klog").stream().filter(f -> f.severity() != Severity.PASS).toList();
    }

    private static Finding about(Verdict v, String pattern) {
        return problems(v).stream().filter(f -> f.entity().label().equals(pattern)).findFirst()
                .orElseThrow(() -> new AssertionError("no finding for " + pattern + " in " + problems(v)));
    }

    @Test
    void anEdacUncorrectableErrorFailsUntilRebootAndTheFirmwaresRecoverableEventWarns() throws Exception {
        Verdict v = run("[11189.970968] EDAC MC3: 1 UE memory read error on CPU_SrcID#1_MC#1_Chan#2_DIMM#0 (channel:2 slot:0 page:0xb757589 "
                + "offset:0x140 grain:32 -  OVERFLOW err_code:0101:0092 socket:1 imc:1 rank:0 bg:3 ba:0 row:1a1e8 col:180)\n"
                + "[11219.196524] {1}[Hardware Error]: Hardware error from APEI Generic Hardware Error Source: 1\n"
                + "[11219.196558] {1}[Hardware Error]: event severity: recoverable\n"
                + "[11219.196576] {1}[Hardware Error]:  Error 0, type: recoverable\n"
                + "[11219.196591] {1}[Hardware Error]:   section_type: PCIe error\n"
                + "[11219.196715] EDAC skx MC3: HANDLING MCE MEMORY ERROR\n");
        Finding ue = about(v, "memory uncorrectable error");
        assertEquals(Severity.FAIL, ue.severity());
        assertEquals(Remedy.HARDWARE, ue.remedy());
        assertTrue(ue.message().contains("EDAC MC3: 1 UE memory read error on CPU_SrcID#1_MC#1_Chan#2_DIMM#0"), ue.message());
        Finding ghes = about(v, "uncorrected hardware error (APEI)");
        assertEquals(Severity.WARN, ghes.severity());
        assertEquals(Remedy.HARDWARE, ghes.remedy());
        assertEquals(2, problems(v).size(), "the source line and skx's own HANDLING line are no further findings: " + problems(v));

        Verdict next = run("[11300.0] usb 1-1: new device\n");
        assertEquals(Severity.FAIL, about(next, "memory uncorrectable error").severity(), "latched until reboot or nhc clear");
        assertTrue(problems(next).stream().noneMatch(f -> f.entity().label().equals("uncorrected hardware error (APEI)")),
                "a warning is for the run that saw it");
    }

    @Test
    void aPageTheKernelPoisonedAfterAnUncorrectableErrorFails() throws Exception {
        Verdict v = run("2019-08-19T04:18:38.274699-04:00 linux-dgwd kernel: [ 261.273240] Memory failure: 0xe16677: already hardware poisoned\n");
        Finding f = about(v, "memory page poisoned");
        assertEquals(Severity.FAIL, f.severity());
        assertEquals(Remedy.HARDWARE, f.remedy());
    }

    @Test
    void correctedErrorsAreNotJudged() throws Exception {
        Verdict v = run("[100.0] {37}[Hardware Error]: Hardware error from APEI Generic Hardware Error Source: 162\n"
                + "[100.0] {37}[Hardware Error]: It has been corrected by h/w and requires no further action\n"
                + "[100.0] {37}[Hardware Error]: event severity: corrected\n"
                + "[100.0] {37}[Hardware Error]:  Error 0, type: corrected\n"
                + "[100.0] {37}[Hardware Error]:   section_type: memory error\n"
                + "[100.0] {37}[Hardware Error]:   error_type: 2, single-bit ECC\n");
        assertEquals(List.of(), problems(v));
    }

    @Test
    void theKernelOutOfFileHandlesWarnsWithTheApplicationToRestart() throws Exception {
        Verdict v = run("kern  :warn  : 2025-01-21T04:41:44,285060+00:00 VFS: file-max limit 1000000 reached\n"
                + "kern  :warn  : 2025-01-21T04:42:44,285060+00:00 VFS: file-max limit 1000000 reached\n");
        Finding f = about(v, "file handles exhausted");
        assertEquals(Severity.WARN, f.severity());
        assertEquals(Remedy.RESTART_APP, f.remedy());
        assertEquals(2L, f.observed().get("lines"));
    }

    @Test
    void aProgramNamedLikeTheseRecordsDecidesNothing() throws Exception {
        Verdict v = run("[200.0] EDAC MC0: 1 UE[4242]: segfault at 0 ip 0 sp 0 error 4 in EDAC MC0: 1 UE x[400000+1000]\n"
                + "[200.1] traps: VFS: file-max l[99] general protection fault ip:401000 sp:0 error:0 in VFS: file-max limit 1 reached[401000+1000]\n");
        assertEquals(List.of(), problems(v));
    }
}
