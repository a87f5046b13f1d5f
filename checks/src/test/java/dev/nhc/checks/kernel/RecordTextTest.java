package dev.nhc.checks.kernel;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RecordTextTest {

    /** Records the kernel starts with a task's name (≤ 15 bytes its user chose), as it prints them. */
    @ParameterizedTest
    @ValueSource(strings = {
            // arch/x86/mm/fault.c show_signal_msg, this machine's kernel
            "NVRM: Xid (PCI:[26547]: segfault at 0 ip 00005585f7e16139 sp 00007ffdd5231780 error 4 in NVRM: Xid (PCI:0000:3b:00): 79",
            // the same name with a line break, as /dev/kmsg escapes it
            "a\\x0aNVRM: Xid (PC[27043]: segfault at 0 ip 0000559fdfe2f139 sp 00007ffc2a2f9650 error 4 in a\\x0aNVRM: Xid",
            // arm64 and riscv arm64_show_signal / show_unhandled_signals
            "EXT4-fs (sda1):[4242]: unhandled signal 11 code 0x1 at 0x0000000000000000 in a[400000+1000]",
            "mlx5_core 0 x: [77]: segfault at 0 ip 0 sp 0 error 4",
            // mm/oom_kill.c dump_header, mm/page_alloc.c warn_alloc, fs/drop_caches.c
            "python3 invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0",
            "NVRM: GPU at PC: page allocation failure: order:0, mode:0x40cc0(GFP_KERNEL|__GFP_COMP)",
            "idle-reclaim (89): drop_caches: 1"})
    void aRecordThatStartsWithATaskNameIsUserLed(String message) {
        assertTrue(RecordText.userLed(message), message);
    }

    /** What drivers and subsystems print first: never mistaken for a task's name. */
    @ParameterizedTest
    @ValueSource(strings = {
            "NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python3, GPU has fallen off the bus.",
            "NVRM: Xid (PCI:0000:3b:00): 13, pid='<unknown>', name=<unknown>, Graphics Exception: ESR 0x514648=0x1000",
            "nvidia-nvswitch3: SXid (PCI:0000:c2:00.0): 20034, Fatal, Link 30 LTSSM Fault Up",
            "NVRM: The NVIDIA GPU 0000:5d:00.0\\x0aNVRM: (PCI ID: 10de:2330) installed in this system has",
            "EXT4-fs (nvme0n1p2): Remounting filesystem read-only",
            "EXT4-fs (loop0): mounted filesystem",
            "watchdog: BUG: soft lockup - CPU#3 stuck for 23s! [python:1234]",
            "INFO: task python3:1234 blocked for more than 120 seconds.",
            "Out of memory: Killed process 1234 (python3) total-vm:1234kB",
            "mce: [Hardware Error]: Machine check events logged",
            "sd 0:0:0:0: [sda] tag#0 FAILED Result: hostbyte=DID_OK",
            "pci 0000:00:00.0: [8086:1237] type 00 class 0x060000",
            "mlx5_core 0000:0d:00.0: poll_health:801:(pid 0): device's health compromised - reached miss count",
            "perf: interrupt took too long (3924 > 3918), lowering kernel.perf_event_max_sample_rate to 50000",
            "Linux version 6.18.44-fc-v657 (builder@sandboxing) (gcc (GCC) 15.3.0, GNU ld (GNU Binutils) 2.46) #1 SMP"})
    void aRecordADriverStartsIsNot(String message) {
        assertFalse(RecordText.userLed(message), message);
    }
}
