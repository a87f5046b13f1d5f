package dev.nhc.checks.kernel;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** A node under a test's root as the kernel-log probes read it: a boot id, and a kernel log file lines are appended to. */
public final class KernelLogFiles {
    /** The file the tests' configs name ({@code log: /var/log/kern.log}). */
    public static final String LOG = "/var/log/kern.log";

    private KernelLogFiles() {
    }

    /** Writes {@code /proc/sys/kernel/random/boot_id} under {@code root}, so that latches belong to boot "boot-1". */
    public static void bootId(Path root) throws IOException {
        Path boot = root.resolve("proc/sys/kernel/random/boot_id");
        Files.createDirectories(boot.getParent());
        Files.writeString(boot, "boot-1\n");
    }

    /** Appends {@code lines} to {@link #LOG} under {@code root}. */
    public static void append(Path root, String lines) throws IOException {
        Path p = root.resolve(LOG.substring(1));
        Files.createDirectories(p.getParent());
        Files.writeString(p, lines, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }
}
