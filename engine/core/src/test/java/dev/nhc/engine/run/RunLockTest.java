package dev.nhc.engine.run;

import dev.nhc.engine.config.Ownership;
import dev.nhc.engine.files.UntrustedPathException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class RunLockTest {
    @TempDir
    Path dir;

    @Test
    void oneHolderAtATimeAndTheOtherLearnsWho() throws Exception {
        String[] holder = new String[1];
        try (RunLock first = RunLock.tryAcquire(dir, holder).orElseThrow()) {
            assertEquals(null, first.note());
            assertTrue(RunLock.tryAcquire(dir, holder).isEmpty());
            assertTrue(holder[0].matches("pid \\d+, started \\d+ s ago"), holder[0]);
        }
        assertTrue(RunLock.tryAcquire(dir, holder).isPresent(), "released");
    }

    /** The first run makes the state directory as the packages do (/var/lib/nhc 0700), whatever the umask; what it adds above is 0755. */
    @Test
    void theStateDirectoryALockMakesIsItsOwnersAlone() throws Exception {
        Path state = dir.resolve("var/lib/nhc");
        try (RunLock lock = RunLock.tryAcquire(state, new String[1]).orElseThrow()) {
            assertEquals("rwx------", java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(state)));
            assertEquals("rwxr-xr-x", java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(state.getParent())));
        }
    }

    @Test
    void theLockFileIsNeverOpenedThroughALink() throws Exception {
        Path precious = Files.writeString(dir.resolve("precious"), "root's own\n");
        Files.createSymbolicLink(dir.resolve(RunLock.FILE), precious);
        UntrustedPathException e = assertThrows(UntrustedPathException.class, () -> RunLock.tryAcquire(dir, new String[1]));
        assertEquals(dir.toRealPath().resolve(RunLock.FILE) + " is a symbolic link, not a regular file; nhc does not lock through it", e.getMessage());
        assertEquals("root's own\n", Files.readString(precious));
    }

    @Test
    void asRootAStateDirectoryAnotherUserOwnsIsRefused() throws Exception {
        assumeTrue(Ownership.runningAsRoot(), "only root can make a directory another user owns (CI runs as root)");
        Path precious = Files.writeString(dir.resolve("precious"), "root's own\n");
        Path theirs = Files.createDirectory(dir.resolve("theirs"));
        Files.createSymbolicLink(theirs.resolve(RunLock.FILE), precious);
        Files.setAttribute(theirs, "unix:uid", 65534);
        UntrustedPathException e = assertThrows(UntrustedPathException.class, () -> RunLock.tryAcquire(theirs, new String[1]));
        assertEquals("directory " + theirs.toRealPath() + " is owned by uid 65534, not root", e.getMessage());
        assertEquals("root's own\n", Files.readString(precious));
    }

    @Test
    void whenTheStateDirectoryCannotHoldALockTheFallbackDoesOrTheRunGoesOnUnlocked() throws Exception {
        // Nothing can be created in /proc, not even by root: like a full or read-only disk.
        Path state = Path.of("/proc/self/nhc-test-state");
        Path fallback = Files.createDirectory(dir.resolve("run"));
        String[] holder = new String[1];
        Optional<RunLock> unlocked = RunLock.tryAcquire(state, holder, false, fallback);
        assertTrue(unlocked.orElseThrow().note().startsWith("running without the run lock: cannot create /proc/"),
                unlocked.get().note());
        unlocked.get().close();
        assumeTrue(Ownership.runningAsRoot(), "the fallback lock in /run/nhc is root's");
        try (RunLock elsewhere = RunLock.tryAcquire(state, holder, true, fallback.resolve("nhc")).orElseThrow()) {
            assertTrue(elsewhere.note().startsWith("locked " + fallback.toRealPath().resolve("nhc") + "/state"), elsewhere.note());
            assertTrue(RunLock.tryAcquire(state, holder, true, fallback.resolve("nhc")).isEmpty(), "and it excludes a second run");
        }
    }
}
