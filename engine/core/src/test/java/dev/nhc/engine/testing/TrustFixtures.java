package dev.nhc.engine.testing;

import dev.nhc.engine.config.Ownership;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Files for tests of the root-only trust rule: a temporary directory as root's alone would be, and
 * files another user owns. Only root can give a file away, so tests that need one assume root
 * (CI runs as root).
 */
public final class TrustFixtures {
    /** The user the tests give files to: nobody. */
    public static final int NOBODY = 65534;

    private TrustFixtures() {
    }

    /** {@code tmp} by its real path (the rule walks real paths), mode 755: root's, writable by no one else when root made it. */
    public static Path rootOnly(Path tmp) throws IOException {
        Path dir = tmp.toRealPath();
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        return dir;
    }

    /** An executable {@code #!/bin/sh} script with this body (its directories created). */
    public static Path script(Path where, String body) throws IOException {
        Files.createDirectories(where.getParent());
        Files.writeString(where, "#!/bin/sh\n" + body + "\n");
        Files.setPosixFilePermissions(where, PosixFilePermissions.fromString("rwxr-xr-x"));
        return where;
    }

    /** Gives {@code file} (created as a directory when missing) to {@link #NOBODY}. */
    public static Path nobodys(Path file) throws IOException {
        if (Files.notExists(file)) {
            Files.createDirectories(file);
        }
        Files.setAttribute(file, "unix:uid", NOBODY);
        return file;
    }

    public static void assumeRoot() {
        assumeTrue(Ownership.runningAsRoot(), "the root-only rule is about files other users own: only root can make them (CI runs as root)");
    }
}
