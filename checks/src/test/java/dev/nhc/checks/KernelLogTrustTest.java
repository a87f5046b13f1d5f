package dev.nhc.checks;

import dev.nhc.checks.gpu.xid.GpuXidProbe;
import dev.nhc.checks.host.KernelLogProbe;
import dev.nhc.checks.kernel.KernelLogCapture;
import dev.nhc.model.Finding;
import dev.nhc.model.Severity;
import dev.nhc.model.Verdict;
import dev.nhc.rules.testing.Pipeline;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 17 item 1: a local user must not fail a node through the kernel log. Each source, as
 * nhc run judges it, against the two attacks a user has: a program named like a kernel message
 * that segfaults (the kernel itself then logs a record holding the name, in the shape
 * {@code show_signal_msg}/{@code print_vma_addr} give it, here as this machine's kernel printed
 * it), and a line the user logs ({@code logger}), each in the exact shape the source holds it.
 * The kernel's own XID and remount records still fail, through the same source.
 */
class KernelLogTrustTest {
    /** What the kernel logged here for `setpriv --reuid=nobody ./'NVRM: Xid (PCI:0000:3b:00): 79, pid=1, GPU has fallen off the bus.'`. */
    static final String SEGFAULT = "NVRM: Xid (PCI:[26547]: segfault at 0 ip 00005585f7e16139 sp 00007ffdd5231780 error 4 in "
            + "NVRM: Xid (PCI:0000:3b:00): 79, pid=1, GPU has fallen off the bus.[1139,5585f7e16000+1000] likely on CPU 0 (core 0, socket 0)";
    /** The same with a line break in the program's name and file name: "a\nNVRM: Xid (PCI:…". */
    static final String SEGFAULT_LINE_BREAK = "a\nNVRM: Xid (PC[27043]: segfault at 0 ip 0000559fdfe2f139 sp 00007ffc2a2f9650 error 4 in "
            + "a\nNVRM: Xid (PCI:0000:3b:00): 79, pid=1, x[1139,559fdfe2f000+1000] likely on CPU 1 (core 1, socket 0)";
    /** A program named "EXT4-fs (sda1):" (15 bytes, the most a task name holds) and its file named like the remount message. */
    static final String SEGFAULT_REMOUNT = "EXT4-fs (sda1):[4242]: segfault at 0 ip 0000559fdfe2f139 sp 00007ffc2a2f9650 error 4 in "
            + "EXT4-fs (sda1): Remounting filesystem read-only[1139,559fdfe2f000+1000] likely on CPU 1 (core 1, socket 0)";
    /** A general protection fault: the record starts with the kernel's "traps: ", the user's file name inside it. */
    static final String TRAP = "traps: python3.11[4243] general protection fault ip:401000 sp:7ffc2a2f9650 error:0 in "
            + "NVRM: Xid (PCI:0000:3b:00): 79, pid=1, GPU has fallen off the bus.[401000+1000]";
    static final String USER_LINE = "NVRM: Xid (PCI:0000:3b:00): 79, pid=1, name=python3, GPU has fallen off the bus.";
    static final String KERNEL_XID = "NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python3, GPU has fallen off the bus.";
    static final String KERNEL_REMOUNT = "EXT4-fs (nvme0n1p2): Remounting filesystem read-only";

    @TempDir
    Path root;

    /** One source as the config names it, and how it holds the kernel's records and a user's line. */
    enum Source {
        /** /dev/kmsg: "prio,seq,usec,flags;text", line breaks escaped; a user's line reaches it only through journald's ForwardToKMsg, as facility user. */
        KMSG("kmsg", "/dev/kmsg", false,
                m -> "4,{seq},797028921,-;" + m.replace("\n", "\\x0a"),
                m -> "14,{seq},797028921,-;alice[4242]: " + m),
        /** journalctl -k -o json: _TRANSPORT is journald's own; logger's line is _TRANSPORT=syslog. */
        JOURNAL("journal", null, false,
                m -> json("kernel", m),
                m -> json("syslog", m)),
        /** rsyslog's traditional file format; control characters escaped as #012; logger tags a line with the user's name. */
        SYSLOG_FILE("/var/log/syslog", "/var/log/syslog", false,
                m -> "Nov 22 04:05:56 gpu-001 kernel: [  797.028921] " + m.replace("\n", "#012"),
                m -> "Nov 22 04:05:57 gpu-001 alice: " + m),
        /** rsyslog's RFC 3339 format, as Ubuntu 24.04 writes it (no kernel stamp). */
        SYSLOG_RFC3339("/var/log/kern.log", "/var/log/kern.log", false,
                m -> "2026-11-22T04:05:56.123456+00:00 gpu-001 kernel: " + m.replace("\n", "#012"),
                m -> "2026-11-22T04:05:57.000001+00:00 gpu-001 alice: " + m),
        /** dmesg text saved to a file: a record's further lines indented by the stamp's width. */
        DMESG_FILE("/var/log/dmesg", "/var/log/dmesg", false,
                m -> "[  797.028921] " + m.replace("\n", "\n               "),
                m -> "[  797.028922] alice[4242]: " + m),
        /** nhc replay --kernel-log of a dmesg capture. */
        REPLAY_DMESG(null, "/capture/dmesg.txt", true,
                m -> "[  797.028921] " + m.replace("\n", "\n               "),
                m -> "[  797.028922] alice[4242]: " + m),
        /** nhc replay --kernel-log of what cat /dev/kmsg printed. */
        REPLAY_KMSG(null, "/capture/kmsg.txt", true,
                m -> "4,{seq},797028921,-;" + m.replace("\n", "\\x0a"),
                m -> "14,{seq},797028921,-;alice[4242]: " + m),
        /** nhc replay --kernel-log of a syslog capture. */
        REPLAY_SYSLOG(null, "/capture/syslog.txt", true,
                m -> "Nov 22 04:05:56 gpu-001 kernel: " + m.replace("\n", "#012"),
                m -> "Nov 22 04:05:57 gpu-001 alice: " + m);

        final String log;
        final String file;
        final boolean replay;
        final Function<String, String> kernel;
        final Function<String, String> user;

        Source(String log, String file, boolean replay, Function<String, String> kernel, Function<String, String> user) {
            this.log = log;
            this.file = file;
            this.replay = replay;
            this.kernel = kernel;
            this.user = user;
        }
    }

    @BeforeEach
    void bootId() throws IOException {
        Path boot = root.resolve("proc/sys/kernel/random/boot_id");
        Files.createDirectories(boot.getParent());
        Files.writeString(boot, "boot-1\n");
    }

    private static String json(String transport, String message) {
        String escaped = message.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
        return "{\"__CURSOR\":\"s=6d1f;i=5a2\",\"__REALTIME_TIMESTAMP\":\"1763784356123456\",\"__MONOTONIC_TIMESTAMP\":\"797028921\","
                + "\"_BOOT_ID\":\"9a4f0c2be1d84c6f9b1e0d3c2a1b0f9e\",\"_TRANSPORT\":\"" + transport + "\",\"MESSAGE\":\"" + escaped + "\"}";
    }

    /** Both probes over the source holding these lines (already in the source's shape). */
    private Verdict judge(Source s, List<String> lines) throws Exception {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < lines.size(); i++) {
            text.append(lines.get(i).replace("{seq}", Integer.toString(i + 1))).append('\n');
        }
        Pipeline p = new Pipeline(root, new GpuXidProbe(), new KernelLogProbe())
                .settings("nvml_library: " + root.resolve("no-nvml/libnvidia-ml.so.1"));
        String with;
        if (s == Source.JOURNAL) {
            Path entries = root.resolve("entries.json");
            Files.writeString(entries, text);
            Path fake = Scripts.write(Files.createDirectories(root.resolve("bin")), "journalctl", "cat " + entries + "; echo '-- cursor: s=1'");
            with = "{ log: journal, journalctl: " + fake + " }";
        } else {
            Path f = root.resolve(s.file.substring(1));
            Files.createDirectories(f.getParent());
            Files.writeString(f, text);
            with = s.replay ? "{}" : "{ log: " + s.log + " }";
            if (s.replay) {
                p.service(KernelLogCapture.class, new KernelLogCapture(Path.of(s.file)));
            }
        }
        return p.run("- { name: xid, use: gpu.xid, with: " + with + " }\n- { name: klog, use: kernel.log, with: " + with + " }");
    }

    private static List<String> shaped(Function<String, String> shape, String... messages) {
        List<String> out = new ArrayList<>();
        for (String m : messages) {
            out.add(shape.apply(m));
        }
        return out;
    }

    private static void passes(Verdict v, String why) {
        for (String check : List.of("xid", "klog")) {
            List<Finding> bad = Pipeline.findings(v, check).stream().filter(f -> f.severity() != Severity.PASS).toList();
            assertEquals(List.of(), bad, why + ": " + check);
        }
    }

    @ParameterizedTest
    @EnumSource(Source.class)
    void aProgramNamedLikeAKernelMessageThatSegfaultsFailsNoNode(Source s) throws Exception {
        passes(judge(s, shaped(s.kernel, SEGFAULT, SEGFAULT_LINE_BREAK, SEGFAULT_REMOUNT, TRAP)), s.name());
    }

    @ParameterizedTest
    @EnumSource(Source.class)
    void aUsersLoggerLineFailsNoNode(Source s) throws Exception {
        passes(judge(s, shaped(s.user, USER_LINE, KERNEL_REMOUNT)), s.name());
    }

    /** The rule takes nothing from the kernel's own records: through the same source, they fail. */
    @ParameterizedTest
    @EnumSource(Source.class)
    void theKernelsOwnRecordsStillFail(Source s) throws Exception {
        Verdict v = judge(s, shaped(s.kernel, SEGFAULT, KERNEL_XID, KERNEL_REMOUNT));
        Finding xid = Pipeline.about(v, "xid", "GPU at PCI 0000:3b:00.0");
        assertEquals(Severity.FAIL, xid.severity(), s.name());
        assertTrue(xid.message().contains("XID 79"), xid.message());
        assertEquals(Severity.FAIL, Pipeline.about(v, "klog", "filesystem read-only").severity(), s.name());
    }
}
