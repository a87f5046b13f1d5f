package dev.nhc.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * LBNL NHC check lines written for the machine the test runs on, each once as it should pass and
 * once as it should fail, so that the comparison with LBNL NHC covers both verdicts of every
 * translated function (the shipped sample mostly checks hardware this machine does not have).
 */
final class MachineLines {
    private MachineLines() {
    }

    static List<String> forThisMachine(Path tmp) throws IOException {
        List<String> l = new ArrayList<>();
        int[] cpu = lbnlCpuCounts();
        l.add("check_hw_cpuinfo " + cpu[0] + " " + cpu[1] + " " + cpu[2]);
        l.add("check_hw_cpuinfo " + cpu[0] + " " + cpu[1] + " " + (cpu[2] + 1));
        long memKb = meminfo("MemTotal");
        l.add("check_hw_physmem " + memKb + "kB " + memKb + "kB");
        l.add("check_hw_physmem " + (memKb + 1) + "kB " + (memKb + 5) + "kB");
        l.add("check_hw_physmem " + (memKb + 1) + "kB " + (memKb + 5) + "kB 1%");
        l.add("check_hw_physmem 1kB 2kB");
        long swapKb = meminfo("SwapTotal");
        l.add("check_hw_swap " + swapKb + " " + swapKb);
        l.add("check_hw_swap " + (swapKb + 1024) + " " + (swapKb + 2048));
        l.add("check_hw_swap_free 0");
        l.add("check_hw_swap_free " + (meminfo("SwapFree") + 1));
        String rootType = rootFsType();
        l.add("check_fs_mount_rw -f /");
        l.add("check_fs_mount_ro -f /");
        l.add("check_fs_mount -t " + rootType + " -f /");
        l.add("check_fs_mount -t not" + rootType + " -f /");
        l.add("check_fs_mount_rw -f /proc");
        l.add("check_fs_free / 1%");
        l.add("check_fs_free / 100%");
        l.add("check_fs_free / 1k");
        l.add("check_fs_free / 1e");
        l.add("check_fs_used / 100%");
        l.add("check_fs_used / 1%");
        l.add("check_fs_used / 1P");
        l.add("check_fs_used / 1");
        l.add("check_fs_size / 1k 1P");
        l.add("check_fs_size / 1P 2P");
        l.add("check_fs_ifree / 1");
        l.add("check_fs_ifree / 1000000000000");
        l.add("check_fs_iused / 100%");
        l.add("check_fs_iused / 1%");
        l.add("check_ps_daemon java");
        l.add("check_ps_daemon java root");
        l.add("check_ps_daemon no-such-daemon-here");
        l.add("check_ps_service -u root java");
        l.add("check_ps_service no-such-service-here");
        l.add("check_ps_loadavg 100000");
        l.add("check_ps_loadavg 0");
        l.add("check_ps_loadavg '' '' 0");
        Path empty = Files.writeString(tmp.resolve("empty-file"), "");
        l.add("check_file_test -e /etc/passwd /etc/group");
        l.add("check_file_test -e /etc/passwd /no/such/file");
        l.add("check_file_test -s /etc/passwd");
        l.add("check_file_test -s " + empty);
        l.add("check_file_contents /etc/passwd '/^root:/'");
        l.add("check_file_contents /etc/passwd 'root:*'");
        l.add("check_file_contents /etc/passwd '/^no-such-user-here:/'");
        l.add("check_file_contents /etc/passwd '/^root:/' 'no-such-user-here:*'");
        l.add("check_cmd_status /bin/true");
        l.add("check_cmd_status /bin/false");
        l.add("check_cmd_status -r 1 /bin/false");
        l.add("check_cmd_status -t 1 /bin/sleep 4");
        l.add("check_cmd_status no-such-command-here");
        l.add("check_cmd_output -m '/^root:/' /bin/cat /etc/passwd");
        l.add("check_cmd_output -m '/^no-such-user-here:/' /bin/cat /etc/passwd");
        l.add("check_cmd_output -e '/bin/echo hello world' -m '*hello*'");
        return l;
    }

    /** Why a line must not run here, or null: LBNL NHC creates a missing mount point directory. */
    static String unsafeToRun(String check) {
        if (check.startsWith("check_fs_mount")) {
            for (String w : check.split("\\s+")) {
                String p = w.replace("'", "").replace("\"", "");
                if (p.startsWith("/") && !p.endsWith("/") && !p.contains(":") && !Files.exists(Path.of(p))) {
                    return p + " does not exist, and LBNL NHC would create it";
                }
            }
        }
        return null;
    }

    /** Sockets, cores and threads as LBNL NHC counts them from /proc/cpuinfo. */
    private static int[] lbnlCpuCounts() throws IOException {
        Set<String> physical = new HashSet<>();
        int processors = 0;
        Integer cores = null;
        Integer siblings = null;
        for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
            String[] kv = line.split("\\s*:\\s*", 2);
            if (kv.length < 2) {
                continue;
            }
            switch (kv[0].trim()) {
                case "processor" -> processors++;
                case "physical id" -> physical.add(kv[1].trim());
                case "cpu cores" -> cores = Integer.parseInt(kv[1].trim());
                case "siblings" -> siblings = Integer.parseInt(kv[1].trim());
                default -> { }
            }
        }
        if (physical.isEmpty()) {
            return new int[] {processors, processors, processors};
        }
        int s = physical.size();
        return new int[] {s, cores == null ? 1 : s * cores, siblings == null ? 1 : s * siblings};
    }

    private static long meminfo(String key) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
            if (line.startsWith(key + ":")) {
                return Long.parseLong(line.substring(key.length() + 1).trim().split("\\s+")[0]);
            }
        }
        throw new IOException("no " + key + " in /proc/meminfo");
    }

    private static String rootFsType() throws IOException {
        String type = null;
        for (String line : Files.readAllLines(Path.of("/proc/mounts"))) {
            String[] f = line.split(" ");
            if (f.length > 2 && f[1].equals("/")) {
                type = f[2];
            }
        }
        if (type == null) {
            throw new IOException("/ is not in /proc/mounts");
        }
        return type;
    }
}
