package dev.nhc.checks;

import dev.nhc.checks.dcgm.DcgmTestData;
import dev.nhc.checks.gpu.FakeAmdSmi;
import dev.nhc.checks.gpu.FakeGpus;
import dev.nhc.checks.gpu.FakeNvml;
import dev.nhc.checks.gpu.amd.AmdGpuEvents;
import dev.nhc.checks.gpu.amd.GpuAmdEventsProbe;
import dev.nhc.checks.gpu.GpuChecks;
import dev.nhc.checks.gpu.capture.JsonWriter;
import dev.nhc.checks.gpu.GpuFabricTest;
import dev.nhc.model.CheckResult;
import dev.nhc.probe.Probe;
import dev.nhc.rules.testing.Pipeline;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A realistic run of every probe of this module, for {@link ProbeFieldsTest}: the node a site runs
 * it on (a fake system root, the project's fake NVML, a stand-in dcgmi or systemctl, kernel log
 * lines as the kernel writes them), healthy and with the faults that change what it reports.
 * {@code whole}: the probe saw every entity entirely, so every declared field that is not optional
 * must be there; a scenario in which the probe could not see the entity (not mounted, no answer)
 * is checked for what it reports only.
 */
final class FieldScenarios {
    private static final String BOOT_ID = "/proc/sys/kernel/random/boot_id";

    /** One run: the check named "x" of {@code probe}, with inputs written under {@code dir}. */
    record Scenario(String probe, String what, boolean whole, Run run) {
        @Override
        public String toString() {
            return probe + ": " + what;
        }
    }

    interface Run {
        CheckResult run(Path dir) throws Exception;
    }

    private final List<Scenario> all = new ArrayList<>();

    static List<Scenario> all() {
        FieldScenarios s = new FieldScenarios();
        s.host();
        s.files();
        s.kernel();
        s.gpus();
        s.dcgm();
        s.network();
        return s.all;
    }

    private void add(String probe, String what, boolean whole, Run run) {
        all.add(new Scenario(probe, what, whole, run));
    }

    private static CheckResult check(Path root, Probe probe, String with) throws Exception {
        return check(new Pipeline(root, probe), probe.spec().name(), with);
    }

    private static CheckResult check(Pipeline p, String probe, String with) throws Exception {
        return Pipeline.result(p.run("- { name: x, use: " + probe + ", with: " + with + " }"), "x");
    }

    /** The fake NVML with this scenario, opened afresh. */
    private static Pipeline nvml(Path dir, Probe probe, String scenarioJson) throws IOException {
        FakeNvml.useRaw(scenarioJson);
        return new Pipeline(dir, probe).settings("nvml_library: " + FakeNvml.library());
    }

    private static Path tool(Path dir, String name, String body) throws IOException {
        return Scripts.write(Files.createDirectories(dir.resolve("bin")), name, body);
    }

    private static Map<String, Object> driverNotLoaded() {
        Map<String, Object> s = FakeNvml.scenario(List.of());
        s.put("returns", Map.of("nvmlInit_v2", 9));
        return s;
    }

    private static String json(Map<String, Object> scenario) {
        return JsonWriter.write(scenario);
    }

    static Path write(Path root, String absolute, String text) throws IOException {
        Path p = root.resolve(absolute.substring(1));
        Files.createDirectories(p.getParent());
        Files.writeString(p, text);
        return p;
    }

    // ---------------------------------------------------------------- host

    private void host() {
        add("disk.usage", "the root filesystem", true, dir -> {
            write(dir, "/proc/self/mounts", "/dev/root / ext4 rw,relatime 0 0\n");
            return check(dir, new dev.nhc.checks.host.DiskUsageProbe(), "{ mount: / }");
        });
        add("disk.usage", "not mounted", false, dir -> {
            write(dir, "/proc/self/mounts", "/dev/root / ext4 rw,relatime 0 0\n");
            return check(dir, new dev.nhc.checks.host.DiskUsageProbe(), "{ mount: /scratch }");
        });
        add("disk.mount", "mounted with every parameter", true, dir -> {
            write(dir, "/proc/self/mounts", "fs01:/export/home /home nfs4 rw,relatime,vers=4.2 0 0\n");
            return check(dir, new dev.nhc.checks.host.DiskMountProbe(),
                    "{ mount: /home, fstype: nfs4, source: \"fs01:/export/home\", options: [rw, \"vers=4.2\"] }");
        });
        add("disk.mount", "remounted read-only", true, dir -> {
            write(dir, "/proc/self/mounts", "/dev/nvme0n1 /scratch xfs ro,relatime 0 0\n");
            return check(dir, new dev.nhc.checks.host.DiskMountProbe(), "{ mount: /scratch, fstype: xfs, options: [rw] }");
        });
        add("disk.writable", "a writable directory", true, dir -> {
            Files.createDirectories(dir.resolve("scratch"));
            return check(dir, new dev.nhc.checks.host.DiskWritableProbe(), "{ path: /scratch }");
        });
        add("memory", "with an expected total", true, dir -> {
            write(dir, "/proc/meminfo", "MemTotal:       527000000 kB\nMemFree:        401234567 kB\nMemAvailable:   489123456 kB\n"
                    + "SwapTotal:       8388604 kB\nSwapFree:        8388000 kB\nHugePages_Total:      16\nHugePages_Free:       12\n"
                    + "Hugepagesize:       2048 kB\n");
            return check(dir, new dev.nhc.checks.host.MemoryProbe(), "{ total: 512GiB, tolerance: 3% }");
        });
        add("cpu", "two sockets of two cores with SMT", true, dir -> {
            cpus(dir);
            return check(dir, new dev.nhc.checks.host.CpuProbe(), "{ sockets: 2, cores: 4, threads: 8 }");
        });
        add("load", "a busy node", true, dir -> {
            write(dir, "/proc/loadavg", "30.12 20.50 10.01 7/2345 99812\n");
            write(dir, "/sys/devices/system/cpu/online", "0-127\n");
            return check(dir, new dev.nhc.checks.host.LoadProbe(), "{ }");
        });
        add("process", "sshd running", true, dir -> {
            write(dir, "/etc/passwd", "root:x:0:0:root:/root:/bin/bash\n");
            process(dir, 812, "sshd", "/usr/sbin/sshd\0-D\0");
            return check(dir, new dev.nhc.checks.host.ProcessProbe(), "{ name: sshd, user: root }");
        });
        add("process", "sshd not running", true, dir -> {
            write(dir, "/etc/passwd", "root:x:0:0:root:/root:/bin/bash\n");
            process(dir, 1, "systemd", "/sbin/init\0");
            return check(dir, new dev.nhc.checks.host.ProcessProbe(), "{ name: sshd }");
        });
        add("systemd.unit", "an active service", true, dir -> {
            Path systemctl = tool(dir, "systemctl", "printf 'ActiveState=active\\nSubState=running\\nLoadState=loaded\\n'");
            return check(dir, new dev.nhc.checks.host.SystemdUnitProbe(), "{ unit: slurmd.service, systemctl: " + systemctl + " }");
        });
        add("kernel.module", "a loaded module", true, dir -> {
            write(dir, "/proc/modules", "nvidia_uvm 1531904 2 - Live 0x0000000000000000 (POE)\n");
            Files.createDirectories(dir.resolve("sys/module/nvidia_uvm"));
            write(dir, "/sys/module/nvidia_uvm/initstate", "live\n");
            return check(dir, new dev.nhc.checks.host.KernelModuleProbe(), "{ name: nvidia_uvm }");
        });
        add("disk.nvme", "two NVMe drives", true, dir -> {
            for (String d : new String[] {"nvme0n1", "nvme0n1p1", "nvme1n1"}) {
                Files.createDirectories(dir.resolve("sys/class/block/" + d));
            }
            Files.createDirectories(dir.resolve("sys/class/nvme/nvme0"));
            Files.createDirectories(dir.resolve("sys/class/nvme/nvme1"));
            return check(dir, new dev.nhc.checks.host.NvmeProbe(), "{ count: 2 }");
        });
        add("command", "a command that prints what it should", true, dir ->
                check(dir, new dev.nhc.checks.host.CommandProbe(), "{ command: [/bin/echo, \"State: Active\"], output: Active, timeout: 5s }"));
        add("command", "a command that fails", true, dir ->
                check(dir, new dev.nhc.checks.host.CommandProbe(), "{ command: [/bin/false] }"));
    }

    private static void cpus(Path dir) throws IOException {
        String cpu = "/sys/devices/system/cpu";
        write(dir, cpu + "/online", "0-7\n");
        write(dir, cpu + "/present", "0-7\n");
        write(dir, cpu + "/smt/active", "1\n");
        write(dir, cpu + "/smt/control", "on\n");
        for (int i = 0; i < 8; i++) {
            int core = i % 4;
            int socket = core / 2;
            write(dir, cpu + "/cpu" + i + "/topology/core_cpus_list", core + "," + (core + 4) + "\n");
            write(dir, cpu + "/cpu" + i + "/topology/package_cpus_list", (socket * 2) + "-" + (socket * 2 + 1) + ","
                    + (socket * 2 + 4) + "-" + (socket * 2 + 5) + "\n");
        }
    }

    private static void process(Path dir, int pid, String comm, String cmdline) throws IOException {
        write(dir, "/proc/" + pid + "/comm", comm + "\n");
        write(dir, "/proc/" + pid + "/status", "Name:\t" + comm + "\nState:\tS (sleeping)\nUid:\t0\t0\t0\t0\n");
        write(dir, "/proc/" + pid + "/cmdline", cmdline);
    }

    private void files() {
        add("file", "a file with every parameter", true, dir -> {
            write(dir, "/etc/nhc/marker", "state: ok\n");
            return check(dir, new dev.nhc.checks.host.FileProbe(),
                    "{ path: /etc/nhc/marker, mode: \"0644\", owner: root, max_age: 1h, contains: \"^state: ok\" }");
        });
        add("file", "a file without parameters", true, dir -> {
            write(dir, "/etc/hosts", "127.0.0.1 localhost\n");
            return check(dir, new dev.nhc.checks.host.FileProbe(), "{ path: /etc/hosts }");
        });
        add("file", "a missing file", false, dir -> check(dir, new dev.nhc.checks.host.FileProbe(), "{ path: /etc/nope }"));
    }

    // ---------------------------------------------------------------- kernel log

    private void kernel() {
        add("kernel.log", "a quiet log", true, dir -> {
            write(dir, BOOT_ID, "boot-1\n");
            write(dir, "/var/log/kern.log", "[1.0] usb 1-1: new device\n");
            return check(dir, new dev.nhc.checks.host.KernelLogProbe(), "{ log: /var/log/kern.log }");
        });
        add("kernel.log", "a read-only remount", true, dir -> {
            write(dir, BOOT_ID, "boot-1\n");
            write(dir, "/var/log/kern.log", "[2.0] EXT4-fs (nvme0n1p2): Remounting filesystem read-only\n");
            return check(dir, new dev.nhc.checks.host.KernelLogProbe(), "{ log: /var/log/kern.log }");
        });
        add("gpu.xid", "no XIDs", true, dir -> {
            write(dir, BOOT_ID, "boot-1\n");
            write(dir, "/var/log/kern.log", "[1.0] usb 1-1: new device\n");
            return check(xidPipeline(dir), "gpu.xid", "{ log: /var/log/kern.log }");
        });
        add("gpu.xid", "a fatal and an application XID, and an SXID", true, dir -> {
            write(dir, BOOT_ID, "boot-1\n");
            write(dir, "/var/log/kern.log", "[100.0] NVRM: Xid (PCI:0000:3b:00): 48, pid='<unknown>', name=<unknown>, An uncorrectable "
                    + "double bit error (DBE)\n[101.0] NVRM: Xid (PCI:0000:3b:00): 13, pid=4711, name=python, Graphics Exception\n"
                    + "[102.0] nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 12028, Non-fatal, Link 32 egress non-posted PRIV error\n");
            return check(xidPipeline(dir), "gpu.xid", "{ log: /var/log/kern.log }");
        });
    }

    private static Pipeline xidPipeline(Path dir) {
        return new Pipeline(dir, new dev.nhc.checks.gpu.xid.GpuXidProbe()).settings("nvml_library: " + dir.resolve("none/libnvidia-ml.so.1"));
    }

    // ---------------------------------------------------------------- GPUs

    private void gpus() {
        for (Probe probe : GpuChecks.probes()) {
            String name = probe.spec().name();
            String with = switch (name) {
                case "gpu.inventory" -> "{ count: 8, model: H100 }";
                case "gpu.nvlink" -> "{ expected_links: 18 }";
                default -> "{ }";
            };
            add(name, "eight healthy H100s (fake NVML)", true, dir ->
                    check(nvml(dir, probe, json(FakeNvml.scenario(FakeNvml.healthyH100s(8)))), name, with));
            add(name, "NVML cannot be used", false, dir ->
                    check(nvml(dir, probe, json(driverNotLoaded())), name, with));
        }
        // The vendor-neutral checks on AMD's GPUs (the fake AMD SMI, the fake NVML installed with none), and gpu.links on NVIDIA's.
        for (Probe probe : GpuChecks.anyVendorProbes()) {
            String name = probe.spec().name();
            String with = switch (name) {
                case "gpu.inventory" -> "{ count: 8, model: MI300X }";
                case "gpu.links" -> "{ expected_links: " + FakeAmdSmi.XGMI_LINKS + " }";
                default -> "{ }";
            };
            add(name, "eight healthy MI300Xs (fake AMD SMI)", true, dir -> {
                FakeAmdSmi.use(FakeAmdSmi.scenario(FakeAmdSmi.healthyMi300xs(8)));
                return check(FakeGpus.pipeline(dir, probe), name, with);
            });
        }
        add("gpu.links", "eight healthy H100s (fake NVML)", true, dir ->
                check(nvml(dir, new dev.nhc.checks.gpu.GpuLinksProbe(), json(FakeNvml.scenario(FakeNvml.healthyH100s(8)))), "gpu.links",
                        "{ expected_links: 18 }"));
        add("gpu.amd-events", "eight MI300Xs watched, one reset", true, dir -> {
            write(dir, BOOT_ID, "boot-1\n");
            AmdGpuEvents queue = new AmdGpuEvents();
            queue.watching(8);
            queue.add(new AmdGpuEvents.Event(2, "0000:38:00.0", AmdGpuEvents.Type.GPU_PRE_RESET, "reset", Instant.now()));
            return check(new Pipeline(dir, new GpuAmdEventsProbe()).service(AmdGpuEvents.class, queue), "gpu.amd-events", "{ }");
        });
        add("gpu.fabric", "eight H100s on a healthy NVSwitch fabric", true, dir -> {
            List<Map<String, Object>> gpus = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                Map<String, Object> g = FakeNvml.healthyH100(i);
                g.put("fabric", new LinkedHashMap<>(GpuFabricTest.fabric(3, 0, GpuFabricTest.HEALTHY_MASK, 1)));
                gpus.add(g);
            }
            Instant boot = Instant.now().minusSeconds(86400);
            write(dir, BOOT_ID, "boot-1\n");
            write(dir, "/proc/stat", "cpu  1 2 3 4\nbtime " + boot.getEpochSecond() + "\n");
            String stamp = DateTimeFormatter.ofPattern("MMM dd yyyy HH:mm:ss", Locale.ROOT).withZone(ZoneOffset.UTC).format(boot.plusSeconds(60));
            write(dir, "/var/log/fabricmanager.log", "[" + stamp + "] [ERROR] [tid 4711] detected NVSwitch non-fatal error 12028 on fid 0 "
                    + "on NVSwitch pci bus id 00000000:05:00.0 physical id 0 port 32\n");
            Path systemctl = tool(dir, "systemctl", "printf 'ActiveState=active\\nSubState=running\\nLoadState=loaded\\n'");
            Pipeline p = nvml(dir, new dev.nhc.checks.gpu.fabric.GpuFabricProbe(), json(FakeNvml.scenario(gpus)));
            return check(p, "gpu.fabric", "{ systemctl: " + systemctl + " }");
        });
    }

    // ---------------------------------------------------------------- DCGM

    private void dcgm() {
        add("dcgm.health", "healthy", true, dir -> dcgmi(dir, "dcgm.health", DcgmTestData.HEALTHY, null, 0));
        add("dcgm.health", "a failing GPU", true, dir -> dcgmi(dir, "dcgm.health", DcgmTestData.UNHEALTHY, null, 0));
        add("dcgm.diag", "a passing level 2 diag", true, dir -> dcgmi(dir, "dcgm.diag", null, DcgmTestData.DIAG_V4_PASS, 0));
        add("dcgm.diag", "a failing level 2 diag", true, dir -> dcgmi(dir, "dcgm.diag", null, DcgmTestData.DIAG_V4_FAIL, 226));
    }

    private static CheckResult dcgmi(Path dir, String probe, String health, String diag, int diagExit) throws Exception {
        Path root = Files.createDirectories(dir.resolve("root/proc"));
        Path exe = dev.nhc.checks.dcgm.FakeDcgmi.answering(dir.resolve("bin"), health, diag, diagExit);
        Probe p = probe.equals("dcgm.health") ? new dev.nhc.checks.dcgm.DcgmHealthProbe() : new dev.nhc.checks.dcgm.DcgmDiagProbe();
        return check(root.getParent(), p, "{ dcgmi: " + exe + (diag != null ? ", level: 2" : "") + " }");
    }

    // ---------------------------------------------------------------- network

    private void network() {
        add("ib.ports", "eight NDR ports, one down", true, dir -> {
            dev.nhc.checks.net.IbSysfsTree.ndrNode(dir, 8, 3);
            return check(dir, new dev.nhc.checks.net.IbPortsProbe(), "{ count: 8, rate: 400 }");
        });
        add("net.interface", "four interfaces, one down, one name missing", true, dir -> {
            dev.nhc.checks.net.NetSysfsTree.healthyNode(dir);
            return check(dir, new dev.nhc.checks.net.NetInterfaceProbe(), "{ name: [\"ib*\", eth0, lo, eth9], speed: 10000, mtu: 4092 }");
        });
    }
}
