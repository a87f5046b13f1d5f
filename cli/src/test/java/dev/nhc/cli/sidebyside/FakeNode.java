package dev.nhc.cli.sidebyside;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A node as LBNL NHC and nhc both read it, built from what a site's config checks: its CPUs,
 * memory, InfiniBand ports, network interfaces, mount table and filesystems, processes, files,
 * kernel modules, and the programs its command checks run. {@link FakeRoot} lays it out as a root
 * tree that LBNL NHC sees as / (in a chroot) and nhc as its settings.root.
 */
final class FakeNode {
    String fqdn = "node001.cluster.local";
    int sockets = 2;
    int coresPerSocket = 8;
    int threadsPerCore = 2;
    long memTotalKb = 32L << 20;
    long memFreeKb = 28L << 20;
    long buffersKb = 1L << 20;
    long cachedKb = 1L << 20;
    long swapTotalKb;
    long swapFreeKb;
    double load1 = 0.5;
    int numaNodes = 2;
    boolean umad = true;
    final List<IbPort> ports = new ArrayList<>();
    final Map<String, Boolean> interfaces = new LinkedHashMap<>();
    final List<Mount> mounts = new ArrayList<>();
    final List<Proc> procs = new ArrayList<>();
    final Map<String, FileSpec> files = new LinkedHashMap<>();
    /** LBNL NHC's sysconfig file where the config reads one: the node's setup, not a file its checks look at. */
    static final String SYSCONFIG = "/etc/sysconfig/nhc";
    final List<String> modules = new ArrayList<>();
    /** Programs the command checks run, by name, with what they print and their exit code. */
    final Map<String, StandIn> programs = new LinkedHashMap<>();
    final Map<String, Integer> users = new LinkedHashMap<>();

    record IbPort(String device, int port, String state, String phys, String rate, String layer) {
    }

    /**
     * A mount table entry; {@code sizeKb} > 0 makes it a real tmpfs of that size with {@code inodes}
     * inodes, {@code usedKb} of it filled and {@code usedInodes} files made, so that df and statvfs measure it.
     */
    record Mount(String source, String point, String type, String options, long sizeKb, long inodes, long usedKb, long usedInodes) {
        Mount with(String newSource, String newType, String newOptions) {
            return new Mount(newSource, point, newType, newOptions, sizeKb, inodes, usedKb, usedInodes);
        }

        Mount filled(long used, long usedFiles) {
            return new Mount(source, point, type, options, sizeKb, inodes, used, usedFiles);
        }

        boolean real() {
            return sizeKb > 0;
        }
    }

    record Proc(int pid, String comm, String cmdline, int uid) {
    }

    /** A file or directory: its mode, content (null for a directory) and age in seconds. */
    record FileSpec(String content, int mode, long ageSeconds) {
        boolean directory() {
            return content == null;
        }
    }

    record StandIn(String output, int exit) {
    }

    FakeNode() {
        users.put("root", 0);
        users.put("daemon", 1);
        users.put("nobody", 65534);
        users.put("sshd", 74);
    }

    int uid(String user) {
        return users.computeIfAbsent(user, u -> 1000 + users.size());
    }

    Mount mount(String point) {
        return mounts.stream().filter(m -> m.point().equals(point)).reduce((a, b) -> b).orElse(null);
    }

    void replace(Mount old, Mount now) {
        mounts.set(mounts.lastIndexOf(old), now);
    }

    /** A deep enough copy for a variant to change. */
    FakeNode copy() {
        FakeNode n = new FakeNode();
        n.fqdn = fqdn;
        n.sockets = sockets;
        n.coresPerSocket = coresPerSocket;
        n.threadsPerCore = threadsPerCore;
        n.memTotalKb = memTotalKb;
        n.memFreeKb = memFreeKb;
        n.buffersKb = buffersKb;
        n.cachedKb = cachedKb;
        n.swapTotalKb = swapTotalKb;
        n.swapFreeKb = swapFreeKb;
        n.load1 = load1;
        n.numaNodes = numaNodes;
        n.umad = umad;
        n.ports.addAll(ports);
        n.interfaces.putAll(interfaces);
        n.mounts.addAll(mounts);
        n.procs.addAll(procs);
        n.files.putAll(files);
        n.modules.addAll(modules);
        n.programs.putAll(programs);
        n.users.clear();
        n.users.putAll(users);
        return n;
    }
}
