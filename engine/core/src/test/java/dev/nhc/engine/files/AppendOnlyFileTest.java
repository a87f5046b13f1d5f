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
}
