package dev.nhc.checks.host;

import dev.nhc.checks.host.KernelLogPatterns.LogPattern;
import dev.nhc.checks.kernel.KernelLogLine;
import dev.nhc.checks.kernel.RecordText;
import dev.nhc.text.BoundedRegex;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The default patterns, each against the record the kernel prints for it and against the ways a user can put that text in a record. */
class KernelLogPatternsTest {
    /** Per default pattern, a record the kernel or the driver prints (their format strings, values of real machines). */
    private static final Map<String, String> REAL = new LinkedHashMap<>();

    static {
        REAL.put("filesystem read-only", "EXT4-fs (nvme0n1p2): Remounting filesystem read-only");
        REAL.put("block I/O error", "Buffer I/O error on dev sda1, logical block 0, async page read");
        REAL.put("soft lockup", "watchdog: BUG: soft lockup - CPU#3 stuck for 23s! [python:1234]");
        REAL.put("hung task", "INFO: task kworker/u8:2:123 blocked for more than 122 seconds.");
        REAL.put("out of memory", "Out of memory: Killed process 4242 (python3) total-vm:81234kB, anon-rss:7654kB");
        REAL.put("machine check", "mce: [Hardware Error]: Machine check events logged");
        REAL.put("filesystem error", "EXT4-fs error (device nvme0n1p2): ext4_lookup:1855: inode #2: comm ls: deleted inode referenced: 12");
        REAL.put("NIC PCIe link degraded", "mlx5_core 0000:3b:00.0: 63.008 Gb/s available PCIe bandwidth, limited by 8.0 GT/s PCIe x8 link "
                + "at 0000:3a:00.0 (capable of 252.048 Gb/s with 16.0 GT/s PCIe x16 link)");
        REAL.put("NIC link down", "mlx5_core 0000:3b:00.0 ens1np0: Link down");
        REAL.put("NIC fatal error", "mlx5_core 0000:0d:00.0: poll_health:801:(pid 0): device's health compromised - reached miss count");
        // The signatures without an XID: their public sources are in KernelLogSignaturesTest.
        REAL.put("NIC slot power insufficient", "mlx5_core 0000:5c:00.0: mlx5_pcie_event:299:(pid 268269): Detected insufficient power "
                + "on the PCIe slot (27W).");
        REAL.put("NIC module overheated", "mlx5_core 0000:5c:00.0: mlx5_port_module_event:1131:(pid 0): Port module event[error]: "
                + "module 0, Cable error, High Temperature");
        REAL.put("GPU init failed", "NVRM: GPU 0000:0a:00.0: RmInitAdapter failed! (0x24:0x72:1568)");
        REAL.put("GPU needs reset", "NVRM: GPU6 _kgspBootGspRm: (the GPU is likely in a bad state and may need to be reset)");
        REAL.put("GPU lost", "NVRM: nvAssertOkFailedNoLog: Assertion failed: GPU lost from the bus [NV_ERR_GPU_IS_LOST] (0x0000000F) "
                + "returned from rmStatus @ kernel_ce_gv100.c:106");
        REAL.put("GSP heartbeat lost", "NVRM: GPU0 _kgspRpcRecvPoll: GSP RM heartbeat timed out");
        REAL.put("PCIe fatal error on a GPU or NIC", "pcieport 0000:00:02.0: AER: Uncorrected (Fatal) error received: 0000:02:00.0");
        REAL.put("PCIe uncorrectable error on a GPU or NIC", "pcieport 0000:80:1b.4: AER: Uncorrectable (Non-Fatal) error message "
                + "received from 0000:80:1b.4");
        REAL.put("memory uncorrectable error", "EDAC MC3: 1 UE memory read error on CPU_SrcID#1_MC#1_Chan#2_DIMM#0 (channel:2 slot:0 "
                + "page:0xb757589 offset:0x140 grain:32 -  OVERFLOW err_code:0101:0092 socket:1 imc:1 rank:0 bg:3 ba:0 row:1a1e8 col:180)");
        REAL.put("memory page poisoned", "Memory failure: 0xe16677: already hardware poisoned");
        REAL.put("uncorrected hardware error (APEI)", "{1}[Hardware Error]: event severity: recoverable");
        REAL.put("file handles exhausted", "VFS: file-max limit 1000000 reached");
        // amdgpu's, from the public reports KernelLogAmdgpuTest names
        REAL.put("amdgpu GPU reset", "amdgpu 0000:0a:00.0: amdgpu: GPU reset begin!");
        REAL.put("amdgpu uncorrectable error", "amdgpu 0000:1c:00.0: {1}uncorrectable hardware error(ERREVENT_ATHUB_INTERRUPT) detected!");
        REAL.put("amdgpu GPU init failure", "amdgpu 0000:83:00.0: amdgpu: Fatal error during GPU init");
        REAL.put("amdgpu hardware error logged", "amdgpu 0000:42:00.0: {1}[Hardware Error]: Accelerator Check Architecture events logged");
        REAL.put("amdgpu ring timeout", "amdgpu 0000:c5:00.0: amdgpu: ring gfx_0.0.0 timeout, signaled seq=2662395, emitted seq=2662397");
        REAL.put("amdgpu page fault", "amdgpu 0000:c6:00.0: amdgpu: [gfxhub0] no-retry page fault (src_id:0 ring:24 vmid:3 pasid:32769)");
    }

    private static KernelLogLine record(String message) {
        return new KernelLogLine(1, null, 900.0, message, KernelLogLine.Origin.KERNEL);
    }

    /** The patterns that match the record as nhc applies them: from the start of its text, bounded, never in a user-led record. */
    private static List<String> matching(String message) {
        KernelLogLine line = record(message);
        if (!RecordText.decides(line)) {
            return List.of();
        }
        return KernelLogPatterns.DEFAULTS.stream().filter(p -> BoundedRegex.lookingAt(p.regex(), message).matched()).map(LogPattern::name).toList();
    }

    @Test
    void everyDefaultHasARealRecordAndMatchesIt() {
        assertEquals(KernelLogPatterns.DEFAULTS.stream().map(LogPattern::name).toList(), List.copyOf(REAL.keySet()));
        REAL.forEach((name, message) -> assertEquals(List.of(name), matching(message), message));
    }

    /**
     * A user names a program with the record's first 15 characters (the most a task name holds)
     * and its file with the whole record, and lets it segfault: the kernel's record starts with the
     * name and holds the file name. No default may match it; nor the file name inside the kernel's
     * own "traps:" record.
     */
    @Test
    void noDefaultMatchesARecordAUserShaped() {
        REAL.forEach((name, message) -> {
            String comm = message.substring(0, Math.min(15, message.length()));
            String segfault = comm + "[4242]: segfault at 0 ip 0000559fdfe2f139 sp 00007ffc2a2f9650 error 4 in " + message
                    + "[1139,559fdfe2f000+1000] likely on CPU 1 (core 1, socket 0)";
            assertEquals(List.of(), matching(segfault), segfault);
            String trap = "traps: " + comm + "[4242] general protection fault ip:401000 sp:7ffc2a2f9650 error:0 in " + message + "[401000+1000]";
            assertEquals(List.of(), matching(trap), trap);
            assertEquals(List.of(), matching(comm + " invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0"), comm);
        });
    }

    /** Patterns are matched from the start of a record: one that begins with a wildcard would find the text anywhere again. */
    @ParameterizedTest
    @ValueSource(strings = {".*Remounting", "^.*Remounting", "(?i).+remounting", "\\S+ remounting", "[^:]*: Remounting",
            "(.*)Remounting", "(?:\\w+ )?EXT4|.*Remounting", ".{3,}Remounting", "\\p{Alpha}*-fs"})
    void aPatternThatBeginsWithAWildcardIsRefused(String regex) {
        assertTrue(KernelLogPatterns.leadingWildcard(regex) != null, regex);
        String problem = KernelLogPatterns.problem(List.of(Map.of("regex", regex)));
        assertTrue(problem.startsWith("patterns[0].regex begins with the wildcard '"), problem);
        assertTrue(problem.contains("a leading wildcard would find the text inside a record, where users put it"), problem);
    }

    @ParameterizedTest
    @ValueSource(strings = {"EXT4-fs \\(\\S+\\): Remounting", "^mlx5_core \\S+: .*fatal", "(?i)buffer I/O error", "[Hh]ardware error",
            "(?:NMI )?watchdog: BUG", "\\[drm\\] GPU HANG", "\\.\\*literal"})
    void aPatternThatBeginsWithTheKernelsWordsIsAccepted(String regex) {
        assertNull(KernelLogPatterns.leadingWildcard(regex), regex);
        assertNull(KernelLogPatterns.problem(List.of(Map.of("regex", regex))), regex);
    }
}
