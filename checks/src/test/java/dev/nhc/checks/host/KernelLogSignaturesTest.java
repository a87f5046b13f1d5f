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
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * kernel.log's default signatures for faults the kernel logs without an XID number (issue 18 item
 * 2), each on a real public log line. Sources (the message text is verbatim; where a capture had no
 * timestamp nhc reads, the test gives it a dmesg "[uptime]" one):
 * <ul>
 *   <li>RmInitAdapter: https://github.com/NVIDIA/gpu-operator/issues/1146 and
 *       https://github.com/NVIDIA/open-gpu-kernel-modules/issues/1230 (which also has the
 *       "may need to be reset" line)</li>
 *   <li>NV_ERR_RESET_REQUIRED: https://github.com/NVIDIA/open-gpu-kernel-modules/issues/1045 (journalctl cut the line at "&gt;")</li>
 *   <li>NV_ERR_GPU_IS_LOST: https://github.com/NVIDIA/open-gpu-kernel-modules/issues/688 (a DGX Station A100)</li>
 *   <li>GSP heartbeat: https://github.com/ublue-os/bazzite/issues/4449 (journalctl --no-hostname; the printing
 *       code is kernel_gsp.c _kgspRpcRecvPoll in NVIDIA/open-gpu-kernel-modules @ df1c9a3d)</li>
 *   <li>AER on a GPU: https://github.com/wilicc/gpu-burn/issues/1 ("device has no AER-aware driver" before XID 79);
 *       the newer root-port wording: https://github.com/minisforum-docs/MS-02-Ultra/issues/10; the older one:
 *       https://github.com/geerlingguy/raspberry-pi-pcie-devices/issues/116</li>
 *   <li>mlx5: leptonai/gpud components/accelerator/nvidia/infiniband/kmsg_matcher.go and its test
 *       (@ 4a8de33a3f02e207f39e9023d67125592d599731), which cite Linux drivers/net/ethernet/mellanox/mlx5/core/events.c</li>
 * </ul>
 * Whether an address is a GPU or a NIC comes from /sys/bus/pci/devices/ADDR/class, written here.
 */
class KernelLogSignaturesTest {
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

    private void pciClass(String address, String cls) throws IOException {
        Path p = root.resolve("sys/bus/pci/devices/" + address + "/class");
        Files.createDirectories(p.getParent());
        Files.writeString(p, cls + "\n");
    }

    private static Optional<Finding> finding(Verdict v, String entity) {
        return Pipeline.findings(v, "klog").stream().filter(f -> f.entity().label().equals(entity)).findFirst();
    }

    private static Finding only(Verdict v, String entity) {
        List<Finding> problems = Pipeline.findings(v, "klog").stream().filter(f -> f.severity() != Severity.PASS).toList();
        assertEquals(1, problems.size(), problems.toString());
        assertEquals(entity, problems.get(0).entity().label(), problems.toString());
        return problems.get(0);
    }

    @Test
    void aGpuTheDriverCouldNotInitialiseFailsTheNodeUntilReboot() throws Exception {
        Finding f = only(run("Dec  2 11:49:53 worker4 kernel: [  885.242168] NVRM: GPU 0000:0a:00.0: RmInitAdapter failed! (0x24:0x72:1568)\n"
                + "Dec  2 11:49:53 worker4 kernel: [  885.242457] NVRM: GPU 0000:0a:00.0: rm_init_adapter failed, device minor number 5\n"),
                "GPU init failed");
        assertEquals(Severity.FAIL, f.severity());
        assertEquals(Remedy.REBOOT, f.remedy());
        assertTrue(f.message().contains("RmInitAdapter failed! (0x24:0x72:1568)"), f.message());
    }

    @Test
    void aGpuInABadStateAfterGspBootFailsAsNeedingAReset() throws Exception {
        Verdict v = run("[  115.083711] NVRM: GPU6 _kgspBootGspRm: unexpected WPR2 already up, cannot proceed with booting GSP\n"
                + "[  115.083720] NVRM: GPU6 _kgspBootGspRm: (the GPU is likely in a bad state and may need to be reset)\n");
        Finding f = only(v, "GPU needs reset");
        assertEquals(Severity.FAIL, f.severity());
        assertEquals(Remedy.RESET_GPU, f.remedy());
    }

    @Test
    void theDriversResetRequiredStatusFailsAsNeedingAReset() throws Exception {
        Finding f = only(run("Jun 12 16:31:50 fedora-box kernel: NVRM: GPU0 nvCheckOkFailedNoLog: Check failed: Reset required "
                + "[NV_ERR_RESET_REQUIRED] (0x00000062) returned from _gpushareddataSendDataPollRpc(pGpu, polle>\n"), "GPU needs reset");
        assertEquals(Severity.FAIL, f.severity());
    }

    @Test
    void aGpuTheDriverLostFromTheBusFailsWithReboot() throws Exception {
        Finding f = only(run("Feb 17 08:02:35 abggdna-DGX-Station-A100 kernel: NVRM: nvAssertOkFailedNoLog: Assertion failed: GPU lost "
                + "from the bus [NV_ERR_GPU_IS_LOST] (0x0000000F) returned from rmStatus @ kernel_ce_gv100.c:106\n"), "GPU lost");
        assertEquals(Severity.FAIL, f.severity());
        assertEquals(Remedy.REBOOT, f.remedy());
    }

    @Test
    void aGspHeartbeatTimeoutWarnsTheDriverDecidesWhenItIsFatal() throws Exception {
        Verdict v = run("[322227.881] NVRM: GPU0 _kgspIsHeartbeatTimedOut: Heartbeat timed out, currentTimeMs 322227881 heartbeat 0 "
                + "heartbeatWithOffsetMs 318098841 diff 4129040 timeout 5200\n"
                + "[322227.882] NVRM: GPU0 _kgspRpcRecvPoll: GSP RM heartbeat timed out\n");
        Finding f = only(v, "GSP heartbeat lost");
        assertEquals(Severity.WARN, f.severity());
        assertEquals(Remedy.RESET_GPU, f.remedy());
        assertEquals(2L, f.observed().get("lines"));
    }

    @Test
    void aGpuWithoutAnAerAwareDriverAfterAnUncorrectableErrorFails() throws Exception {
        pciClass("0000:02:00.0", "0x030200");
        pciClass("0000:00:02.0", "0x060400");
        Verdict v = run("[74889.542031] pcieport 0000:00:02.0: AER: Uncorrected (Fatal) error received: id=0010\n"
                + "[74889.542044] pcieport 0000:00:02.0: PCIe Bus Error: severity=Uncorrected (Fatal), type=Transaction Layer, id=0010(Receiver ID)\n"
                + "[74889.542184] pcieport 0000:00:02.0:    [ 5] Surprise Down Error    (First)\n"
                + "[74889.542234] pcieport 0000:00:02.0: broadcast error_detected message\n"
                + "[74889.542239] nvidia 0000:02:00.0: device has no AER-aware driver\n");
        Finding f = only(v, "PCIe fatal error on a GPU or NIC");
        assertEquals(Severity.FAIL, f.severity());
        assertEquals(Remedy.REBOOT, f.remedy());
        assertTrue(f.message().contains("nvidia 0000:02:00.0: device has no AER-aware driver"), f.message());
    }

    @Test
    void anUncorrectableErrorCountsOnlyForAGpuOrNicAddress() throws Exception {
        String line = "Sep 22 09:59:09 pve kernel: pcieport 0000:80:1b.4: AER: Uncorrectable (Non-Fatal) error message received from 0000:80:1b.4\n";
        pciClass("0000:80:1b.4", "0x060400");
        assertTrue(finding(run(line), "PCIe uncorrectable error on a GPU or NIC").isEmpty(), "a bridge's own error is not a GPU's or NIC's");
        pciClass("0000:80:1b.4", "0x020700");
        Finding nic = only(run(line), "PCIe uncorrectable error on a GPU or NIC");
        assertEquals(Severity.WARN, nic.severity(), "an InfiniBand controller (class 0207) is a NIC");
        assertEquals(Remedy.HARDWARE, nic.remedy());
    }

    @Test
    void aDeviceThatVanishedAfterAFatalErrorStillCounts() throws Exception {
        // no /sys/bus/pci/devices/0000:00:00.0: the kernel removed it, or nhc cannot tell what it was
        Finding f = only(run("[   58.258850] pcieport 0000:00:00.0: AER: Uncorrected (Fatal) error received: 0000:00:00.0\n"),
                "PCIe fatal error on a GPU or NIC");
        assertEquals(Severity.FAIL, f.severity());
    }

    @Test
    void aSataControllerThatCannotRecoverIsNoGpuOrNic() throws Exception {
        pciClass("0000:01:00.0", "0x010601");
        pciClass("0000:00:00.0", "0x060400");
        Verdict v = run("[   58.245739] ahci 0000:01:00.0: AER: can't recover (no error_detected callback)\n"
                + "[   58.258850] pcieport 0000:00:00.0: AER: Uncorrected (Non-Fatal) error received: 0000:00:00.0\n");
        assertEquals(Severity.PASS, Pipeline.severity(v, "klog"), Pipeline.findings(v, "klog").toString());
    }

    @Test
    void mlx5SlotPowerAndModuleTemperatureWarnForTheHardware() throws Exception {
        Verdict v = run("[100.0] mlx5_core 0000:5c:00.0: mlx5_pcie_event:299:(pid 268269): Detected insufficient power on the PCIe slot (27W).\n"
                + "[100.1] mlx5_core 0000:5c:00.0: mlx5_port_module_event:1131:(pid 0): Port module event[error]: module 0, Cable error, "
                + "High Temperature\n");
        Finding power = finding(v, "NIC slot power insufficient").orElseThrow();
        assertEquals(Severity.WARN, power.severity());
        assertEquals(Remedy.HARDWARE, power.remedy());
        assertEquals(Severity.WARN, finding(v, "NIC module overheated").orElseThrow().severity());
    }

    @Test
    void theSignaturesMatchOnlyTheDriversOwnMessageNotTextInsideAnother() throws Exception {
        // a user's program named like a driver message is logged inside the kernel's segfault record: not a GPU fault
        Verdict v = run("[200.0] python[4242]: segfault at 0 ip 0 sp 0 error 4 in NVRM: GPU 0000:0a:00.0: RmInitAdapter failed![400000+1000]\n"
                + "[200.1] bash[99]: NVRM: GPU0 _kgspRpcRecvPoll: GSP RM heartbeat timed out\n");
        assertEquals(Severity.PASS, Pipeline.severity(v, "klog"), Pipeline.findings(v, "klog").toString());
    }

    @Test
    void aPatternWithPciClassNeedsAPciGroupAndHexClasses() {
        assertTrue(KernelLogPatterns.problem(List.of(java.util.Map.of("regex", "x", "pci_class", List.of("03"))))
                .contains("needs a named group (?<pci>"));
        assertTrue(KernelLogPatterns.problem(List.of(java.util.Map.of("regex", "(?<pci>x)", "pci_class", List.of("gpu"))))
                .contains("'gpu' is not a hex PCI class prefix"));
        assertTrue(KernelLogPatterns.problem(List.of(java.util.Map.of("regex", "x", "remedy", "pray"))).contains("unknown remedy 'pray'"));
        assertEquals(null, KernelLogPatterns.problem(List.of(java.util.Map.of("regex", "^foo (?<pci>\\S+)", "pci_class", List.of("0302"),
                "remedy", "reset-gpu"))));
    }
}
