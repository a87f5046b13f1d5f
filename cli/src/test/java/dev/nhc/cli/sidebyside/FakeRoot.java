package dev.nhc.cli.sidebyside;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Writes a {@link FakeNode} as the stage lbnl-side-by-side.sh mounts: {@code root/} (the tree that
 * becomes / for LBNL NHC and settings.root for nhc: /proc and /sys files as the kernel writes them,
 * /etc, the node's files), {@code mounts.tsv} (the filesystems to mount as sized tmpfs, with how full),
 * {@code standins/} (the programs the command checks run, put over /usr/bin for both), and the
 * host name.
 */
final class FakeRoot {
    /** The types GNU df takes for pseudo filesystems (gnulib's ME_DUMMY): they stay directories of the root. */
    private static final java.util.Set<String> DUMMY_TYPES = java.util.Set.of("autofs", "proc", "subfs", "debugfs", "devpts", "fusectl",
            "fuse.portal", "mqueue", "rpc_pipefs", "sysfs", "devfs", "kernfs", "ignore", "none");

    /** SMBIOS type numbers of the structure names the sites' DMI checks use (DMTF DSP0134). */
    private static final Map<String, Integer> DMI_TYPES = Map.of("BIOS Information", 0, "System Information", 1, "Memory Device", 17);

    private FakeRoot() {
    }

    static void write(FakeNode n, Path stage) throws IOException {
        Path root = stage.resolve("root");
        Files.createDirectories(root);
        for (String link : new String[] {"bin", "lib", "lib64", "sbin"}) {
            Files.createSymbolicLink(root.resolve(link), Path.of("usr/" + link));
        }
        write(stage.resolve("hostname"), n.fqdn + "\n");
        write(root.resolve("proc/sys/kernel/hostname"), n.fqdn + "\n");
        etc(n, root);
        cpus(n, root);
        memory(n, root);
        write(root.resolve("proc/loadavg"), String.format("%.2f %.2f %.2f 1/200 4242%n", n.load1, n.load1, n.load1));
        mounts(n, root, stage);
        ib(n, root);
        net(n, root);
        write(root.resolve("proc/modules"), n.modules.stream().map(m -> m + " 16384 0 - Live 0x0000000000000000\n").collect(Collectors.joining()));
        procs(n, root);
        files(n, root);
        programs(n, stage.resolve("standins/bin"));
        // kmod's lsmod over the written /proc/modules (the machine may have no kmod; LBNL NHC's lsmod checks run it)
        script(stage.resolve("standins/sbin/lsmod"), "echo 'Module                  Size  Used by'\n"
                + "awk '{ printf \"%-19s %8s  %s\\n\", $1, $2, $3 }' /proc/modules\n");
    }

    private static void etc(FakeNode n, Path root) throws IOException {
        StringBuilder passwd = new StringBuilder();
        StringBuilder group = new StringBuilder();
        for (Map.Entry<String, Integer> u : n.users.entrySet()) {
            String home = u.getKey().equals("root") ? "/root" : "/var/empty";
            passwd.append(u.getKey()).append(":x:").append(u.getValue()).append(':').append(u.getValue()).append("::").append(home)
                    .append(u.getValue() == 0 ? ":/bin/bash\n" : ":/usr/sbin/nologin\n");
            group.append(u.getKey()).append(":x:").append(u.getValue()).append(":\n");
        }
        write(root.resolve("etc/passwd"), passwd.toString());
        write(root.resolve("etc/group"), group.toString());
        write(root.resolve("etc/nsswitch.conf"), "passwd: files\ngroup: files\nhosts: files\n");
    }

    /** /proc/cpuinfo as LBNL NHC counts it, and /sys/devices/system/cpu as nhc does, for the same layout. */
    private static void cpus(FakeNode n, Path root) throws IOException {
        int perSocket = n.coresPerSocket * n.threadsPerCore;
        int total = n.sockets * perSocket;
        StringBuilder cpuinfo = new StringBuilder();
        Path cpu = root.resolve("sys/devices/system/cpu");
        for (int id = 0; id < total; id++) {
            int socket = id / perSocket;
            int core = (id % perSocket) / n.threadsPerCore;
            cpuinfo.append("processor\t: ").append(id).append("\nphysical id\t: ").append(socket).append("\nsiblings\t: ").append(perSocket)
                    .append("\ncore id\t\t: ").append(core).append("\ncpu cores\t: ").append(n.coresPerSocket).append("\ncpu MHz\t\t: 2400.000\n\n");
            int coreFirst = socket * perSocket + core * n.threadsPerCore;
            Path topo = cpu.resolve("cpu" + id + "/topology");
            write(topo.resolve("core_cpus_list"), range(coreFirst, coreFirst + n.threadsPerCore - 1));
            write(topo.resolve("package_cpus_list"), range(socket * perSocket, socket * perSocket + perSocket - 1));
        }
        write(root.resolve("proc/cpuinfo"), cpuinfo.toString());
        write(cpu.resolve("online"), range(0, total - 1));
        write(cpu.resolve("present"), range(0, total - 1));
        for (int i = 0; i < n.numaNodes; i++) {
            Files.createDirectories(root.resolve("sys/devices/system/node/node" + i));
        }
    }

    private static String range(int a, int b) {
        return (a == b ? Integer.toString(a) : a + "-" + b) + "\n";
    }

    private static void memory(FakeNode n, Path root) throws IOException {
        write(root.resolve("proc/meminfo"), "MemTotal:       " + n.memTotalKb + " kB\nMemFree:        " + n.memFreeKb + " kB\nMemAvailable:   "
                + (n.memFreeKb + n.cachedKb) + " kB\nBuffers:        " + n.buffersKb + " kB\nCached:         " + n.cachedKb + " kB\nSwapCached:     0 kB\n"
                + "SwapTotal:      " + n.swapTotalKb + " kB\nSwapFree:       " + n.swapFreeKb + " kB\n");
    }

    /**
     * The mount table three ways: /proc/mounts (LBNL NHC), /proc/self/mounts (nhc) and
     * /proc/self/mountinfo (what GNU df lists). Every filesystem becomes a tmpfs of its own, as big as
     * its usage checks want or 1 MiB, so that each has its own device as on a node (df merges entries
     * of one device); pseudo filesystems (df's dummy types) and what is under /dev (the machine's) do not.
     */
    private static void mounts(FakeNode n, Path root, Path stage) throws IOException {
        StringBuilder table = new StringBuilder();
        StringBuilder info = new StringBuilder();
        StringBuilder real = new StringBuilder();
        int id = 20;
        for (FakeNode.Mount m : n.mounts) {
            table.append(m.source()).append(' ').append(m.point().replace(" ", "\\040")).append(' ').append(m.type()).append(' ')
                    .append(m.options()).append(" 0 0\n");
            // @DEV@: the script puts the mounted point's real device there, which df compares with what stat says
            info.append(id).append(' ').append(m.point().equals("/") ? 1 : 20).append(" @DEV@ / ")
                    .append(m.point().replace(" ", "\\040")).append(' ').append(m.options()).append(" - ").append(m.type()).append(' ')
                    .append(m.source()).append(' ').append(m.options()).append('\n');
            id++;
            if (m.real()) {
                real.append(m.point()).append('\t').append(m.sizeKb()).append('\t').append(m.inodes()).append('\t').append(m.usedKb()).append('\t')
                        .append(m.usedInodes()).append('\n');
            } else if (!DUMMY_TYPES.contains(m.type()) && !m.point().equals("/dev") && !m.point().startsWith("/dev/")) {
                real.append(m.point()).append("\t1024\t1000\t0\t0\n");
            }
            if (!m.point().equals("/")) {
                Files.createDirectories(root.resolve(m.point().substring(1)));
            }
        }
        write(root.resolve("proc/mounts"), table.toString());
        write(root.resolve("proc/self/mounts"), table.toString());
        write(root.resolve("proc/self/mountinfo"), info.toString());
        write(stage.resolve("mounts.tsv"), real.toString());
    }

    private static void ib(FakeNode n, Path root) throws IOException {
        for (FakeNode.IbPort p : n.ports) {
            Path dir = root.resolve("sys/class/infiniband/" + p.device() + "/ports/" + p.port());
            write(dir.resolve("state"), p.state() + "\n");
            write(dir.resolve("phys_state"), p.phys() + "\n");
            write(dir.resolve("rate"), p.rate() + "\n");
            write(dir.resolve("link_layer"), p.layer() + "\n");
        }
        if (n.umad) {
            write(root.resolve("sys/class/infiniband_mad/abi_version"), "5\n");
        }
    }

    private static void net(FakeNode n, Path root) throws IOException {
        StringBuilder dev = new StringBuilder("Inter-|   Receive                                                |  Transmit\n"
                + " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n");
        for (Map.Entry<String, Boolean> i : n.interfaces.entrySet()) {
            dev.append(String.format("%6s: 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0%n", i.getKey()));
            Path dir = root.resolve("sys/class/net/" + i.getKey());
            write(dir.resolve("operstate"), (i.getValue() ? "up" : "down") + "\n");
            write(dir.resolve("flags"), "0x1003\n");
            write(dir.resolve("carrier"), (i.getValue() ? "1" : "0") + "\n");
            write(dir.resolve("mtu"), "1500\n");
            write(dir.resolve("type"), "1\n");
        }
        write(root.resolve("proc/net/dev"), dev.toString());
    }

    private static void procs(FakeNode n, Path root) throws IOException {
        for (FakeNode.Proc p : n.procs) {
            Path dir = root.resolve("proc/" + p.pid());
            write(dir.resolve("comm"), p.comm() + "\n");
            write(dir.resolve("cmdline"), p.cmdline().replace(' ', '\0') + "\0");
            write(dir.resolve("status"), "Name:\t" + p.comm() + "\nState:\tS (sleeping)\nPPid:\t1\nUid:\t" + p.uid() + "\t" + p.uid() + "\t" + p.uid() + "\t"
                    + p.uid() + "\n");
        }
    }

    private static void files(FakeNode n, Path root) throws IOException {
        Instant now = Instant.now();
        for (Map.Entry<String, FakeNode.FileSpec> f : n.files.entrySet()) {
            Path p = root.resolve(f.getKey().substring(1));
            FakeNode.FileSpec s = f.getValue();
            if (s.directory()) {
                Files.createDirectories(p);
            } else {
                write(p, s.content());
            }
            Files.setAttribute(p, "unix:mode", s.mode());
            Files.setLastModifiedTime(p, FileTime.from(now.minusSeconds(s.ageSeconds())));
        }
    }

    /** Each program a bash script printing its output with its exit code; dmidecode prints SMBIOS structures and honours -t. */
    private static void programs(FakeNode n, Path dir) throws IOException {
        Files.createDirectories(dir);
        for (Map.Entry<String, FakeNode.StandIn> p : n.programs.entrySet()) {
            String body = p.getKey().equals("dmidecode") ? dmidecode(p.getValue()) : "cat <<'NHC_STAND_IN'\n" + p.getValue().output() + "NHC_STAND_IN\n";
            script(dir.resolve(p.getKey()), body + "exit " + p.getValue().exit() + "\n");
        }
    }

    private static void script(Path file, String body) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, "#!/bin/bash\n# a stand-in written by LbnlSideBySideIT\n" + body, StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    private static String dmidecode(FakeNode.StandIn s) {
        StringBuilder out = new StringBuilder("# dmidecode 3.4\nGetting SMBIOS data from sysfs.\nSMBIOS 3.3.0 present.\n\n");
        String[] lines = s.output().split("\n");
        int handle = 0;
        for (int i = 0; i + 1 < lines.length; i += 2) {
            int type = DMI_TYPES.getOrDefault(lines[i], 127);
            String structure = "Handle 0x" + String.format("%04X", handle++) + ", DMI type " + type + ", 26 bytes\n" + lines[i] + "\n" + lines[i + 1] + "\n\n";
            out.append(structure);
        }
        // dmidecode ends with this structure; LBNL NHC files a structure's lines when the next one starts, so it needs it too
        out.append("Handle 0x").append(String.format("%04X", handle)).append(", DMI type 127, 4 bytes\nEnd Of Table\n\n");
        // -t N: only that type's structures, as dmidecode prints them
        return "if [ \"$1\" = -t ]; then awk -v t=\"$2\" 'BEGIN{RS=\"\"; ORS=\"\\n\\n\"} $0 ~ (\"DMI type \" t \",\")' <<'NHC_STAND_IN'\n" + out
                + "NHC_STAND_IN\nelse cat <<'NHC_STAND_IN'\n" + out + "NHC_STAND_IN\nfi\n";
    }

    private static void write(Path p, String text) throws IOException {
        Files.createDirectories(p.getParent());
        Files.writeString(p, text, StandardCharsets.UTF_8);
    }
}
