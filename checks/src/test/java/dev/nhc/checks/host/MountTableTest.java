package dev.nhc.checks.host;

import dev.nhc.engine.testing.TestProbeContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MountTableTest {
    @TempDir
    Path root;

    @Test
    void undoesTheKernelsOctalEscapesAndKeepsUtf8Names() {
        String table = "/dev/sdb1 /mnt/my\\040data ext4 rw,relatime 0 0\n"
                + "//srv/share /mnt/tab\\011and\\134back cifs rw 0 0\n"
                + "/dev/sdc1 /mnt/données xfs ro 0 0\n";
        MountTable t = MountTable.parse(table.getBytes(StandardCharsets.UTF_8));
        assertEquals("/dev/sdb1", t.find("/mnt/my data").orElseThrow().source());
        assertEquals("cifs", t.find("/mnt/tab\tand\\back").orElseThrow().fstype());
        assertTrue(t.find("/mnt/données").orElseThrow().readOnly());
    }

    @Test
    void theLastEntryForAMountPointIsTheOneInEffect() {
        String table = "/dev/sda1 /scratch ext4 rw 0 0\n"
                + "server:/export /scratch nfs4 ro,vers=4.2 0 0\n";
        MountTable.Mount m = MountTable.parse(table.getBytes(StandardCharsets.UTF_8)).find("/scratch").orElseThrow();
        assertEquals("server:/export", m.source());
        assertEquals(List.of("ro", "vers=4.2"), m.options());
    }

    @Test
    void skipsLinesTheKernelWouldNotWriteAndFindsByNormalisedPath() {
        String table = "garbage\n\n/dev/sda1 /scratch ext4 rw 0 0\n";
        MountTable t = MountTable.parse(table.getBytes(StandardCharsets.UTF_8));
        assertEquals(1, t.all().size());
        assertTrue(t.find("/scratch/").isPresent());
        assertTrue(t.find("//scratch").isPresent());
        assertThrows(IllegalArgumentException.class, () -> t.find("scratch"));
    }

    @Test
    void readsProcMountsWhenProcSelfMountsIsMissing() throws IOException {
        TestProbeContext ctx = new TestProbeContext(root);
        ctx.write("/proc/mounts", "/dev/vda / ext4 rw 0 0\n");
        assertEquals("/dev/vda", MountTable.read(ctx).find("/").orElseThrow().source());
    }

    @Test
    void noTableAtAllNamesBothPaths() {
        TestProbeContext ctx = new TestProbeContext(root);
        IOException e = assertThrows(IOException.class, () -> MountTable.read(ctx));
        assertTrue(e.getMessage().contains(root.resolve("proc/self/mounts").toString()), e.getMessage());
        assertTrue(e.getMessage().contains(root.resolve("proc/mounts").toString()), e.getMessage());
    }
}
