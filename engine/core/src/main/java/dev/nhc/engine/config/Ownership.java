package dev.nhc.engine.config;

import dev.nhc.engine.files.TrustedPath;
import dev.nhc.engine.files.UntrustedPathException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** File ownership rules for things root executes or trusts (configs, scripts); the walk itself is {@link TrustedPath}. */
public final class Ownership {
    private Ownership() {
    }

    public static boolean runningAsRoot() {
        try {
            // /proc/self is owned by the effective uid of the process that looks at it.
            return ((Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid")) == 0;
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return "root".equals(System.getProperty("user.name"));
        }
    }

    /**
     * Why root should not trust this file, or null when only root can change it: the file, every
     * directory from / down to it and every symbolic link on the way must be root's and writable by
     * no one else (a sticky directory such as /tmp excepted).
     */
    public static String unsafeForRoot(Path file) throws IOException {
        try {
            TrustedPath.resolve(file.toAbsolutePath(), true);
            return null;
        } catch (UntrustedPathException e) {
            return e.getMessage();
        }
    }
}
