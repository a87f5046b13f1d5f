package dev.nhc.engine.state;

import dev.nhc.engine.files.TrustedPath;
import dev.nhc.engine.files.UntrustedPathException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * The rules for {@code state_dir}, looked at before anything in it is read, written or locked.
 * What is kept there decides what nhc does as root (which node it drained and may resume, which
 * fault is latched), so as root the directory and every directory and link up to it must be
 * root's, and the directory itself writable by no one else, sticky or not: whoever could add a
 * file there could forge {@code slurm.json} or plant a link where nhc writes.
 */
public final class StateDirectory {
    private static final FileAttribute<?> DIRECTORY = PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x"));
    private static final FileAttribute<?> OWNER_ONLY = PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------"));

    private StateDirectory() {
    }

    /**
     * The directory's real path (it may not exist yet: then only root can create it). Throws
     * {@link UntrustedPathException} naming what another user could change, or
     * {@link NotDirectoryException} when something else is there.
     */
    public static Path check(Path dir, boolean rootOnly) throws IOException {
        TrustedPath.Resolved r = TrustedPath.resolveMaybeMissing(dir.toAbsolutePath(), rootOnly);
        if (r.exists()) {
            if (!r.stat().isDirectory()) {
                throw new NotDirectoryException(dir + " is " + r.stat().kind() + ", not a directory");
            }
            if (rootOnly && r.stat().writableByOthers()) {
                throw new UntrustedPathException("directory " + r.real() + " is " + r.stat().whoElseCanWrite());
            }
        }
        return r.real();
    }

    /**
     * Creates the checked directory, its owner's alone (0700, as the packages make /var/lib/nhc), and
     * what is missing above it readable by all and writable by its owner only, whatever the umask.
     */
    public static void create(Path real) throws IOException {
        if (real.getParent() != null) {
            Files.createDirectories(real.getParent(), DIRECTORY);
        }
        try {
            Files.createDirectory(real, OWNER_ONLY);
        } catch (java.nio.file.FileAlreadyExistsException e) {
            if (!Files.isDirectory(real, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                throw e;
            }
        }
    }

    /** What a run says when it refuses a state directory. */
    public static String refusal(Path dir, UntrustedPathException e) {
        return "will not use state directory " + dir + ": " + e.getMessage()
                + "; running as root, nhc keeps state only where only root can change it (set settings.state_dir)";
    }
}
