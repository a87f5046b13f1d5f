package dev.nhc.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The node's short name: Slurm's name for it when slurmd runs us, else the kernel's host name without the domain. */
final class NodeName {
    private NodeName() {
    }

    /**
     * The host name as the kernel has it, with its domain when it has one: what host patterns with a
     * dot ({@code *.cluster.local}) are matched against, as LBNL NHC matched its patterns. The
     * override, when given, stands for it.
     */
    static String fullName(String override) {
        if (override != null && !override.isBlank()) {
            return override;
        }
        try {
            return Files.readString(Path.of("/proc/sys/kernel/hostname")).trim();
        } catch (IOException e) {
            String env = System.getenv("HOSTNAME");
            return env == null ? "localhost" : env;
        }
    }

    static String resolve(String override, boolean slurm) {
        if (override != null && !override.isBlank()) {
            return override;
        }
        String slurmName = System.getenv("SLURMD_NODENAME");
        if (slurm && slurmName != null && !slurmName.isBlank()) {
            return slurmName;
        }
        try {
            // Not InetAddress.getLocalHost(): that may wait on DNS, and a health check must not.
            String h = Files.readString(Path.of("/proc/sys/kernel/hostname")).trim();
            int dot = h.indexOf('.');
            return dot > 0 ? h.substring(0, dot) : h;
        } catch (IOException e) {
            String env = System.getenv("HOSTNAME");
            return env == null ? "localhost" : env;
        }
    }
}
