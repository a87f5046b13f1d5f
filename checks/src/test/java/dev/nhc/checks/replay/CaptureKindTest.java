package dev.nhc.checks.replay;

import dev.nhc.checks.capture.ShellPrompt;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A capture's kind comes from its content, whatever the file is called and whatever was pasted above it. */
class CaptureKindTest {

    @Test
    void everyNvidiaSmiFormIsNvidiaSmi() {
        for (String text : new String[]{
            "\n==============NVSMI LOG==============\n\nTimestamp : Mon Mar  4 11:22:09 2024\nDriver Version : 535.161.08\n",
            "Driver Version                            : 535.161.08\nAttached GPUs                             : 8\nGPU 00000000:18:00.0\n",
            "    ECC Errors\n        Volatile\n            SRAM Correctable              : 0\n",
            "Unable to determine the device handle for GPU 0000:3B:00.0: Unknown Error\n",
            "NVIDIA-SMI has failed because it couldn’t communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is"
                    + " installed and running.\n",
            "No devices were found\n",
            "Failed to initialize NVML: Driver/library version mismatch\n",
            "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-5269b708-678a-b1a8-60f0-c90406537486)\n\t Link 0: 26.562 GB/s\n",
            "index, pci.bus_id, ecc.errors.uncorrected.volatile.total\n0, 00000000:18:00.0, 0\n",
            "+-----------------------------------------------------------------------------------------+\n"
                    + "| NVIDIA-SMI 550.90.07              Driver Version: 550.90.07      CUDA Version: 12.4     |\n",
            "$ nvidia-smi -q\n\nAttached GPUs                             : 1\nGPU 00000000:18:00.0\n    Product Name : NVIDIA A10\n",
        }) {
            assertEquals(CaptureKind.NVIDIA_SMI, CaptureKind.recognise(text), text);
        }
    }

    @Test
    void dcgmiDiagAsJsonOrTableWholeOrInPartIsDiag() {
        assertEquals(CaptureKind.DCGMI_DIAG, CaptureKind.recognise("Successfully ran diagnostic for group.\n{\"DCGM Diagnostic\": {}}\n"));
        assertEquals(CaptureKind.DCGMI_DIAG, CaptureKind.recognise("{\"DCGM GPU Diagnostic\" : {\"test_categories\" : []}}"));
        assertEquals(CaptureKind.DCGMI_DIAG, CaptureKind.recognise("| Diagnostic                | Result                                         |\n"));
        assertEquals(CaptureKind.DCGMI_DIAG, CaptureKind.recognise("| GPU Memory                | Fail - All                                     |\n"));
        assertEquals(CaptureKind.DCGMI_DIAG, CaptureKind.recognise("| memory                    | Fail                                           |\n"
                + "|                           | GPU1: Fail                                     |\n"));
        assertEquals(CaptureKind.DCGMI_DIAG, CaptureKind.recognise("+-----  Hardware  ----------+------------------------------------------------+\n"));
    }

    @Test
    void theOtherToolsAndLogsAreTheirKind() {
        assertEquals(CaptureKind.DCGMI_HEALTH, CaptureKind.recognise("Health Monitor Report\n+----+\n| Overall Health:  Healthy |\n"));
        assertEquals(CaptureKind.DCGMI_HEALTH, CaptureKind.recognise("{\"Health Monitor Report\": {\"Overall Health\": \"Healthy\"}}"));
        assertEquals(CaptureKind.IBSTAT, CaptureKind.recognise("[root@gpu-2-12 ~]# ibstat\nCA 'mlx5_0'\n\tCA type: MT4129\n"));
        assertEquals(CaptureKind.FABRIC_MANAGER_LOG, CaptureKind.recognise(
                "[Mar 04 2026 11:22:09] [INFO] [tid 5120] Fabric Manager version 535.161.08 is running\n"));
        assertEquals(CaptureKind.KERNEL_LOG, CaptureKind.recognise("[ 1234.567890] NVRM: Xid (PCI:0000:18:00): 79, pid=0, GPU has fallen off the bus.\n"));
        assertEquals(CaptureKind.KERNEL_LOG, CaptureKind.recognise(
                "Mar  4 11:22:09 gpu-001 kernel: [ 1234.567890] NVRM: Xid (PCI:0000:18:00): 79, pid=0, GPU has fallen off the bus.\n"));
        assertEquals(CaptureKind.KERNEL_LOG, CaptureKind.recognise("kernel: [ 1234.567890] mlx5_core 0000:0c:00.0: mlx5_pcie_event: Detected insufficient power\n"));
    }

    /** AMD's tools by their own shapes; a dmesg line's "[ 12.3]" is not a JSON list. */
    @Test
    void amdSmiAndRocmSmiAreAmdSmiAndAnAmdgpuDmesgIsAKernelLog() {
        assertEquals(CaptureKind.AMD_SMI, CaptureKind.recognise("[\n    {\n        \"gpu\": 0,\n        \"asic\": {\"market_name\": \"AMD Instinct MI300X\"}}]"));
        assertEquals(CaptureKind.AMD_SMI, CaptureKind.recognise("{\n    \"gpu_data\": [\n        {\n            \"gpu\": 0,\n"));
        assertEquals(CaptureKind.AMD_SMI, CaptureKind.recognise("{\"card0\": {\"GPU ID\": \"0x738c\", \"Temperature (Sensor edge) (C)\": \"27.0\"}}"));
        assertEquals(CaptureKind.AMD_SMI, CaptureKind.recognise("GPU: 0\n    RETIRED: No bad pages found.\n    PENDING: No bad pages found.\n"));
        assertEquals(CaptureKind.KERNEL_LOG, CaptureKind.recognise("[ 2237.944732] amdgpu 0000:0a:00.0: amdgpu: GPU reset begin!\n"));
    }

    @Test
    void textNoToolPrintsIsNoKind() {
        assertNull(CaptureKind.recognise(""));
        assertNull(CaptureKind.recognise("hello\nworld\n"));
        assertNull(CaptureKind.recognise("0, 00000000:18:00.0, 0\n"), "a CSV without its header names no field");
    }

    @Test
    void aPromptAboveTheOutputIsACommandLineNotOutput() {
        assertTrue(ShellPrompt.isCommand("$ nvidia-smi -q"));
        assertTrue(ShellPrompt.isCommand("ubuntu@node-7:~$ sudo dcgmi diag -r 2"));
        assertTrue(ShellPrompt.isCommand("[root@gpu-2-12 ~]# ibstat"));
        assertTrue(ShellPrompt.isCommand("nvidia-smi"));
        assertTrue(ShellPrompt.isCommand("dcgmi diag -r 1 -j"));
        assertFalse(ShellPrompt.isCommand("    Product Name                          : NVIDIA H100 80GB HBM3"));
        assertFalse(ShellPrompt.isCommand("| NVIDIA-SMI 550.90.07              Driver Version: 550.90.07      CUDA Version: 12.4     |"));
    }
}
