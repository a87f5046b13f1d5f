package dev.nhc.engine.state;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class StateStoreTest {
    @TempDir
    Path dir;

    @Test
    void valuesSurviveAReload() throws Exception {
        StateStore s = new StateStore(dir);
        s.section("check.gpu-ecc").put("sbe.0", 42L);
        s.section("check.gpu-ecc").put("latched", List.of(Map.of("xid", 79L, "gpu", 3L)));
        s.flush();
        StateStore again = new StateStore(dir);
        assertEquals(42L, again.section("check.gpu-ecc").getLong("sbe.0", -1));
        assertEquals(List.of(Map.of("xid", 79L, "gpu", 3L)), again.section("check.gpu-ecc").get("latched"));
        assertTrue(again.warnings().isEmpty());
    }

    @Test
    void aCorruptFileIsMovedAsideWithAWarning() throws Exception {
        Files.writeString(dir.resolve("check.x.yaml"), "{ this is: [not closed\n");
        StateStore s = new StateStore(dir);
        assertNull(s.section("check.x").get("anything"));
        assertEquals(1, s.warnings().size());
        assertTrue(s.warnings().get(0).contains("moved aside"), s.warnings().get(0));
        try (var files = Files.list(dir)) {
            assertTrue(files.anyMatch(p -> p.getFileName().toString().startsWith("check.x.yaml.corrupt-")));
        }
        s.section("check.x").put("fresh", true);
        s.flush();
        assertEquals(true, new StateStore(dir).section("check.x").get("fresh"));
    }

    @Test
    void aFileThatIsNotAMapIsCorruptToo() throws Exception {
        Files.writeString(dir.resolve("slurm.yaml"), "- a\n- list\n");
        StateStore s = new StateStore(dir);
        assertNull(s.section("slurm").get("a"));
        assertEquals(1, s.warnings().size());
    }

    @Test
    void writesLeaveNoTemporaryFilesAndUnchangedSectionsAreNotRewritten() throws Exception {
        StateStore s = new StateStore(dir);
        s.section("a").put("k", "v");
        s.flush();
        long modified = Files.getLastModifiedTime(dir.resolve("a.yaml")).toMillis();
        Files.setLastModifiedTime(dir.resolve("a.yaml"), java.nio.file.attribute.FileTime.fromMillis(modified - 10_000));
        s.section("a").put("k", "v");
        s.flush();
        assertEquals(modified - 10_000, Files.getLastModifiedTime(dir.resolve("a.yaml")).toMillis(), "an unchanged section is not written");
        try (var files = Files.list(dir)) {
            assertEquals(List.of("a.yaml"), files.map(p -> p.getFileName().toString()).toList());
        }
    }

    @Test
    void aWriteThatCannotHappenSaysWhereAndKeepsTheOldFile() throws Exception {
        StateStore s = new StateStore(dir);
        s.section("a").put("k", 1L);
        s.flush();
        Path blocker = dir.resolve("sub");
        Files.writeString(blocker, "a file where a directory should be");
        StateStore elsewhere = new StateStore(blocker.resolve("state"));
        elsewhere.section("a").put("k", 2L);
        Exception e = assertThrows(java.io.IOException.class, elsewhere::flush);
        assertTrue(e.getMessage().contains("sub"), e.getMessage());
        assertEquals(1L, new StateStore(dir).section("a").getLong("k", -1));
    }
}
