package dev.nhc.cli.sidebyside;

import dev.nhc.cli.lbnl.Getopts;
import dev.nhc.cli.lbnl.HostPattern;
import dev.nhc.cli.lbnl.LbnlConfigReader;
import dev.nhc.cli.lbnl.LbnlLine;
import dev.nhc.cli.lbnl.LbnlSizes;
import dev.nhc.cli.lbnl.ShellWords;
import dev.nhc.cli.lbnl.Sysconfig;
import dev.nhc.engine.config.HostSelector;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The healthy node a site's config describes: for each line that applies to the host, what makes
 * LBNL NHC's function pass (a port active at the rate, a filesystem mounted with the options, a
 * process of the user running, a file with the mode). Lines for other hosts, carried-over site
 * functions and settings leave the node as it is. Also collects what the broken variants need:
 * the processes that must not run.
 */
final class FakeNodeBuilder {
    /** The fake root's own tmpfs (lbnl-side-by-side.sh mounts it so). */
    static final long ROOT_KB = 262_144;
    static final long ROOT_INODES = 20_000;
    /** A filesystem a usage check measures: small, so that a variant fills it quickly, with inodes to spare for "ifree 1k". */
    private static final long FS_KB = 65_536;
    private static final long FS_INODES = 5_000;
    private final FakeNode node = new FakeNode();
    final List<FakeNode.Proc> forbidden = new ArrayList<>();
    private int nextPid = 1000;

    /** The healthy node for the config's lines as LBNL NHC runs them with the node's sysconfig (null for none). */
    static FakeNodeBuilder from(String config, String fqdn, Sysconfig sysconfig) {
        FakeNodeBuilder b = new FakeNodeBuilder();
        b.node.fqdn = fqdn;
        // the filesystems every node has (LBNL NHC misreads a mount table of one line: its read loop's last
        // ((FS_CNT++)) evaluates to 0 and makes nhc_fs_mounts_gather_data say /proc/mounts is unreadable)
        b.mount("/dev/root", "/", "ext4", "rw,relatime", ROOT_KB, ROOT_INODES);
        b.node.mounts.add(new FakeNode.Mount("proc", "/proc", "proc", "rw,nosuid,nodev,noexec,relatime", 0, 0, 0, 0));
        b.node.mounts.add(new FakeNode.Mount("sysfs", "/sys", "sysfs", "rw,nosuid,nodev,noexec,relatime", 0, 0, 0, 0));
        b.node.mounts.add(new FakeNode.Mount("tmpfs", "/run", "tmpfs", "rw,nosuid,nodev,mode=755", 0, 0, 0, 0));
        b.node.files.put("/tmp", new FakeNode.FileSpec(null, 01777, 0));
        b.node.files.put("/var/tmp", new FakeNode.FileSpec(null, 01777, 0));
        for (LbnlLine line : LbnlConfigReader.read(config)) {
            if (line.commentOrBlank() || !line.separated() || line.check().isEmpty() || !applies(line.target(), fqdn)) {
                continue;
            }
            ShellWords.Parsed p = ShellWords.parse(sysconfig == null ? line.check() : sysconfig.resolve(line.check()));
            if (p.isStatic() && !p.words().isEmpty()) {
                b.line(p.words().get(0), p.words().subList(1, p.words().size()));
            }
        }
        return b;
    }

    FakeNode node() {
        return node;
    }

    /** Whether LBNL NHC's mcheck selects this host for the line, as far as nhc's host patterns say. */
    static boolean applies(String target, String fqdn) {
        HostPattern.Result h = HostPattern.translate(target);
        if (h.all()) {
            return true;
        }
        if (h.problem() != null) {
            return false;
        }
        String shortName = fqdn.contains(".") ? fqdn.substring(0, fqdn.indexOf('.')) : fqdn;
        boolean in = HostSelector.parse(h.patterns(), Map.of()).matches(shortName, fqdn);
        return in != h.negated();
    }

    private void line(String function, List<String> args) {
        switch (function) {
            case "check_hw_cpuinfo" -> cpuinfo(args);
            case "check_hw_physmem" -> node.memTotalKb = kib(args, 0, node.memTotalKb);
            case "check_hw_swap", "check_hw_mem" -> {
                if (function.equals("check_hw_swap")) {
                    node.swapTotalKb = kib(args, 0, 0);
                    node.swapFreeKb = node.swapTotalKb;
                }
            }
            case "check_hw_swap_free" -> node.swapFreeKb = Math.max(node.swapFreeKb, kib(args, 0, 0) + 1024);
            case "check_hw_physmem_free", "check_hw_mem_free" -> node.memFreeKb = Math.max(node.memFreeKb, kib(args, 0, 0) + 1024);
            case "check_hw_ib" -> ib(args);
            case "check_hw_eth" -> {
                if (!args.isEmpty() && !ShellWords.hasGlob(args.get(0))) {
                    node.interfaces.put(args.get(0), true);
                }
            }
            case "check_hw_mcelog" -> node.programs.put("mcelog", new FakeNode.StandIn("", 0));
            case "check_fs_mount", "check_fs_mount_rw", "check_fs_mount_ro" -> fsMount(function, args);
            case "check_fs_free", "check_fs_used", "check_fs_size", "check_fs_ifree", "check_fs_iused" -> fsUsage(args);
            case "check_file_test" -> fileTest(args);
            case "check_file_contents" -> fileContents(args);
            case "check_file_stat" -> fileStat(args);
            case "check_ps_service" -> psService(args);
            case "check_ps_daemon" -> {
                if (!args.isEmpty()) {
                    String owner = args.size() > 1 ? args.get(1) : "root";
                    proc(args.get(0), "/usr/sbin/" + args.get(0) + (args.size() > 2 ? " " + args.get(2) : ""), owner);
                }
            }
            case "check_cmd_status", "check_cmd_output" -> command(args);
            case "check_dmi_data_match" -> dmi(args);
            case "check_nv_healthmon" -> node.programs.put("nvidia-healthmon", new FakeNode.StandIn("", 0));
            case "check_nvsmi_healthmon" -> node.programs.put("nvidia-smi", new FakeNode.StandIn("", 0));
            default -> { }
        }
    }

    private static long kib(List<String> args, int i, long otherwise) {
        Long k = args.size() > i ? LbnlSizes.kib(args.get(i)) : null;
        return k == null ? otherwise : k;
    }

    private void cpuinfo(List<String> args) {
        int s = args.size() > 0 && args.get(0).matches("[0-9]+") ? Integer.parseInt(args.get(0)) : node.sockets;
        int c = args.size() > 1 && args.get(1).matches("[0-9]+") ? Integer.parseInt(args.get(1)) : s * node.coresPerSocket;
        int t = args.size() > 2 && args.get(2).matches("[0-9]+") ? Integer.parseInt(args.get(2)) : c;
        node.sockets = s;
        node.coresPerSocket = Math.max(1, c / s);
        node.threadsPerCore = Math.max(1, t / c);
    }

    private void ib(List<String> args) {
        String rate = args.isEmpty() || args.get(0).isEmpty() ? "100" : args.get(0);
        String dev = args.size() > 1 ? args.get(1) : "mlx5_" + node.ports.size() + ":1";
        if (!dev.contains(":")) {
            return;
        }
        String device = dev.substring(0, dev.indexOf(':'));
        int port = Integer.parseInt(dev.substring(dev.indexOf(':') + 1));
        node.ports.removeIf(p -> p.device().equals(device) && p.port() == port);
        node.ports.add(new FakeNode.IbPort(device, port, "4: ACTIVE", "5: LinkUp", rate + " Gb/sec (4X)", "InfiniBand"));
    }

    private void fsMount(String function, List<String> args) {
        List<String> points = new ArrayList<>();
        String source = null;
        String type = null;
        if (!args.isEmpty() && args.get(0).startsWith("/")) {
            points.add(args.get(0));
            source = args.size() > 1 && !args.get(1).isEmpty() ? args.get(1) : null;
            type = args.size() > 2 && !args.get(2).isEmpty() ? args.get(2) : null;
        } else {
            Getopts.Result o = Getopts.parse(":0rE:F:O:e:f:o:s:t:", args);
            points.addAll(o.all('f'));
            points.addAll(o.all('F'));
            points.addAll(o.rest());
            source = o.last('s');
            type = o.last('t');
        }
        String options = function.equals("check_fs_mount_ro") ? "ro,relatime" : "rw,relatime";
        for (String point : points) {
            if (!point.startsWith("/")) {
                continue;
            }
            String src = example(source, "tmpfs");
            String fstype = example(type, "tmpfs");
            FakeNode.Mount old = node.mount(point);
            if (old != null) {
                node.replace(old, old.with(src, fstype, options));
            } else {
                node.mounts.add(new FakeNode.Mount(src, point, fstype, options, 0, 0, 0, 0));
            }
        }
    }

    /** A value an LBNL match expression accepts: itself when plain, else the first of some usual names that matches. */
    static String example(String expr, String otherwise) {
        if (expr == null || expr.isEmpty()) {
            return otherwise;
        }
        if (!expr.startsWith("/") || !expr.endsWith("/")) {
            return ShellWords.hasGlob(expr) ? expr.replaceAll("[*?\\[\\]]", "") : expr;
        }
        Pattern p = Pattern.compile(expr.substring(1, expr.length() - 1));
        for (String candidate : List.of("tmpfs", "none", "devpts", "nfs", "nfs4", "ext4", "xfs", "lustre", "rw")) {
            if (p.matcher(candidate).find()) {
                return candidate;
            }
        }
        return otherwise;
    }

    /** A filesystem that df measures: a real tmpfs, mostly empty, with plenty of inodes (or the root's, for /). */
    private void fsUsage(List<String> args) {
        if (args.isEmpty() || !args.get(0).startsWith("/") || args.get(0).startsWith("/dev/")) {
            return;
        }
        String point = args.get(0);
        long size = FS_KB;
        if (args.size() > 1 && LbnlSizes.kib(args.get(1)) != null && !args.get(1).endsWith("%")) {
            size = Math.max(size, LbnlSizes.kib(args.get(1)) * 4);
        }
        if (args.size() > 2 && LbnlSizes.kib(args.get(2)) != null) {
            // check_fs_size MIN MAX: a size between them
            size = (LbnlSizes.kib(args.get(1)) + LbnlSizes.kib(args.get(2))) / 2;
        }
        mount("tmpfs", point, "tmpfs", "rw,relatime", size, FS_INODES);
    }

    private void mount(String source, String point, String type, String options, long sizeKb, long inodes) {
        FakeNode.Mount old = node.mount(point);
        if (old != null && old.real()) {
            return;
        }
        if (old != null) {
            node.replace(old, new FakeNode.Mount(old.source(), point, old.type(), old.options(), sizeKb, inodes, 0, 0));
        } else {
            node.mounts.add(new FakeNode.Mount(source, point, type, options, sizeKb, inodes, 0, 0));
        }
    }

    private void fileTest(List<String> args) {
        List<Character> ops = new ArrayList<>();
        for (String a : args) {
            if (a.matches("-[a-zA-Z!]")) {
                ops.add(a.charAt(1));
            } else if (a.startsWith("/") && !system(a)) {
                boolean dir = ops.contains('d');
                int mode = (ops.contains('k') ? 01000 : 0) | (dir ? 0777 : 0644);
                node.files.putIfAbsent(a, new FakeNode.FileSpec(dir ? null : "content\n", mode, 0));
            }
        }
    }

    private void fileContents(List<String> args) {
        if (args.isEmpty() || !args.get(0).startsWith("/") || system(args.get(0))) {
            return;
        }
        StringBuilder text = new StringBuilder("# written for the side-by-side run\n");
        for (String m : args.subList(1, args.size())) {
            if (!m.startsWith("!")) {
                text.append(example(m, m).replace("^", "").replace("$", "")).append('\n');
            }
        }
        node.files.put(args.get(0), new FakeNode.FileSpec(text.toString(), 0644, 0));
    }

    private void fileStat(List<String> args) {
        for (String a : args) {
            if (a.startsWith("/") && !system(a)) {
                node.files.putIfAbsent(a, new FakeNode.FileSpec("log line\n", 0644, 60));
            }
        }
    }

    /** Files the fake root has of its own: /etc/passwd and /etc/group with the node's users, and the devices of /dev. */
    private static boolean system(String path) {
        return path.equals("/etc/passwd") || path.equals("/etc/group") || path.startsWith("/dev/");
    }

    private void psService(List<String> args) {
        Getopts.Result o = Getopts.parse(":0E:SVcd:e:fkm:rsu:v", args);
        String service = String.join(" ", o.rest());
        if (service.isEmpty()) {
            return;
        }
        String daemon = o.has('d') ? o.last('d') : service;
        String owner = o.has('u') ? o.last('u') : "root";
        String cmdline = daemon.endsWith(":") ? daemon + " /usr/sbin/" + daemon.replace(":", "") + " -D [listener] 0 of 10-100 startups"
                : "/usr/sbin/" + daemon.replace("*", "");
        if (o.has('s') || o.has('E') || o.has('k')) {
            forbidden.add(new FakeNode.Proc(nextPid++, comm(cmdline), cmdline, node.uid(owner)));
        } else {
            proc(comm(cmdline), cmdline, owner);
        }
    }

    private void proc(String comm, String cmdline, String owner) {
        node.procs.add(new FakeNode.Proc(nextPid++, comm, cmdline, node.uid(owner)));
    }

    private static String comm(String cmdline) {
        String first = cmdline.split(" ", 2)[0];
        String base = first.substring(first.lastIndexOf('/') + 1).replace(":", "");
        return base.length() > 15 ? base.substring(0, 15) : base;
    }

    /** A program of a command check: what it must print (the -m match, as an example line) and its exit code. */
    private void command(List<String> args) {
        Getopts.Result o = Getopts.parse(":C:O:M:e:m:r:t:", args);
        List<String> argv = o.has('e') ? List.of(o.last('e').trim().split("[ \t]+")) : o.rest();
        if (argv.isEmpty()) {
            return;
        }
        String program = argv.get(0);
        if (program.contains("/") || program.equals("lsmod")) {
            if (program.endsWith("lsmod") && o.has('m')) {
                String m = o.last('m');
                node.modules.add(m.replaceAll("[^A-Za-z0-9_]", ""));
            }
            return;
        }
        StringBuilder out = new StringBuilder();
        for (String m : o.all('m')) {
            if (!m.startsWith("!")) {
                out.append(example(m, m)).append('\n');
            }
        }
        if (program.equals("id")) {
            argv.stream().skip(1).findFirst().ifPresent(node::uid);
        }
        int exit = o.has('r') && o.last('r').matches("[0-9]+") ? Integer.parseInt(o.last('r')) : 0;
        node.programs.put(program, new FakeNode.StandIn(out.toString(), exit));
    }

    /** dmidecode's output, one structure per type the matches name, with the KEY: VALUE lines they want. */
    private void dmi(List<String> args) {
        Getopts.Result o = Getopts.parse(":!h:nt:", args);
        String match = String.join(" ", o.rest());
        String type = o.last('t');
        String line = match;
        if (type == null && match.contains(": ")) {
            type = match.substring(0, match.indexOf(": "));
            line = match.substring(match.indexOf(": ") + 2);
        }
        if (type == null) {
            return;
        }
        line = line.replace("*", "");
        FakeNode.StandIn old = node.programs.getOrDefault("dmidecode", new FakeNode.StandIn("", 0));
        node.programs.put("dmidecode", new FakeNode.StandIn(old.output() + type + "\n\t" + line.strip() + "\n", 0));
    }
}
