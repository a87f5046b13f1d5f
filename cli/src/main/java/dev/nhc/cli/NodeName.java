package dev.nhc.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The node's short name: Slurm's name for it when slurmd runs us, else the kernel's host name without the domain. */
final class NodeName {
    private NodeName() {
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
