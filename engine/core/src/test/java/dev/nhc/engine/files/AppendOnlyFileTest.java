package dev.nhc.engine.files;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * What the log file's opener promises. The race it closes (a FIFO slipped in between the lstat and
 * the open) cannot be provoked reliably from a test; CREATE_NEW makes that open fail instead of block.
 */
class AppendOnlyFileTest {
    @TempDir
    Path dir;

    private static void write(FileChannel ch, String text) throws Exception {
        ch.write(ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void aMissingFileIsCreatedOwnerOnlyAndAnExistingOneAppendedTo() throws Exception {
        Path log = dir.resolve("nhc.log");
        try (FileChannel ch = AppendOnlyFile.open(log, false)) {
            write(ch, "one\n");
        }
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(log)));
        try (FileChannel ch = AppendOnlyFile.open(log, false)) {
            write(ch, "two\n");
        }
        assertEquals("one\ntwo\n", Files.readString(log));
    }

    @Test
    void aFifoIsRefusedWithoutWaitingForAReader() throws Exception {
        Path fifo = dir.resolve("nhc.log");
        Process mk = new ProcessBuilder("mkfifo", fifo.toString()).start();
        assumeTrue(mk.waitFor() == 0, "mkfifo is needed");
        UntrustedPathException e = assertTimeoutPreemptively(Duration.ofSeconds(10),
                () -> assertThrows(UntrustedPathException.class, () -> AppendOnlyFile.open(fifo, false)));
        assertTrue(e.getMessage().contains("not a regular file"), e.getMessage());
    }

    @Test
    void aLinkIsNotFollowed() throws Exception {
        Path elsewhere = Files.writeString(dir.resolve("elsewhere"), "keep\n");
        Path link = Files.createSymbolicLink(dir.resolve("nhc.log"), elsewhere);
        assertThrows(UntrustedPathException.class, () -> AppendOnlyFile.open(link, false));
        assertEquals("keep\n", Files.readString(elsewhere));
    }

    @Test
    void asRootAHardLinkIsRefusedAndItsOtherNameNeverWritten() throws Exception {
        assumeTrue(dev.nhc.engine.config.Ownership.runningAsRoot(), "the root-only rule applies to root (CI runs as root)");
        Path real = dir.toRealPath();
        Files.setPosixFilePermissions(real, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path shadow = Files.writeString(real.resolve("shadow"), "root:secret\n");
        Files.setPosixFilePermissions(shadow, PosixFilePermissions.fromString("rw-------"));
        Path log = Files.createLink(real.resolve("nhc.log"), shadow);
        UntrustedPathException e = assertThrows(UntrustedPathException.class, () -> AppendOnlyFile.open(log, true));
        assertEquals(log + " has 2 links (a hard link): appending to it would also write to the other names", e.getMessage());
        assertEquals(e.getMessage(), assertThrows(UntrustedPathException.class, () -> AppendOnlyFile.check(log)).getMessage());
        assertEquals("root:secret\n", Files.readString(shadow));
        try (FileChannel ch = AppendOnlyFile.open(log, false)) {
            assertTrue(ch.isOpen(), "a run that is not root's writes only what its user may write anyway");
        }
    }

    @Test
    void asRootTheLogsDirectoryMustBeRootsAloneEvenSticky() throws Exception {
        assumeTrue(dev.nhc.engine.config.Ownership.runningAsRoot(), "the root-only rule applies to root (CI runs as root)");
        Path real = dir.toRealPath();
        Files.setPosixFilePermissions(real, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path sticky = Files.createDirectories(real.resolve("tmp"));
        Files.setAttribute(sticky, "unix:mode", 01777);
        Path log = sticky.resolve("nhc.log");
        UntrustedPathException e = assertThrows(UntrustedPathException.class, () -> AppendOnlyFile.check(log));
        assertTrue(e.getMessage().startsWith("directory " + sticky + " is writable by every user (mode 1777): another user can put"), e.getMessage());
        assertThrows(UntrustedPathException.class, () -> AppendOnlyFile.open(log, true));
        assertTrue(Files.notExists(log), "nothing created");
        AppendOnlyFile.check(real.resolve("nhc.log"));
        try (FileChannel ch = AppendOnlyFile.open(real.resolve("nhc.log"), true)) {
            write(ch, "ok\n");
        }
        AppendOnlyFile.check(real.resolve("nhc.log"));
    }
}
