package dev.nhc.engine.files;

import dev.nhc.engine.testing.TrustFixtures;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Finding a native library before it is loaded; the files are plain ones (nothing is loaded here: see the NVML tests). */
class TrustedLibraryTest {
    @TempDir
    Path tmp;
    private Path dir;

    @BeforeEach
    void realDir() throws Exception {
        dir = TrustFixtures.rootOnly(tmp);
    }

    private Path lib(Path where) throws Exception {
        Files.createDirectories(where.getParent());
        return Files.writeString(where, "\177ELF not really");
    }

    @Test
    void aPathIsThatFileByItsRealPath() throws Exception {
        Path real = lib(dir.resolve("a/libx.so.1"));
        Path link = Files.createSymbolicLink(dir.resolve("libx.so"), real);
        assertEquals(real, TrustedLibrary.locate(link.toString(), false));
        NoSuchFileException e = assertThrows(NoSuchFileException.class, () -> TrustedLibrary.locate(dir.resolve("none.so").toString(), false));
        assertEquals("No such file or directory", e.getReason());
        assertThrows(NoSuchFileException.class, () -> TrustedLibrary.locate(dir.resolve("a").toString(), false), "a directory is no library");
    }

    @Test
    void aNameIsTheFirstCandidateInTheSearchPath() throws Exception {
        Path second = lib(dir.resolve("two/libx.so.1"));
        Path third = lib(dir.resolve("three/libx.so.1"));
        List<Path> dirs = List.of(dir.resolve("one"), second.getParent(), third.getParent());
        assertEquals(second, TrustedLibrary.search("libx.so.1", dirs, true));
        NoSuchFileException e = assertThrows(NoSuchFileException.class, () -> TrustedLibrary.search("liby.so", dirs, true));
        assertEquals("not found in " + dir.resolve("one") + ", " + second.getParent() + ", " + third.getParent(), e.getReason());
    }

    @Test
    void theSearchPathHasTheSystemDirectoriesLast() {
        List<Path> dirs = TrustedLibrary.searchPath();
        assertEquals(Path.of("/usr/lib"), dirs.get(dirs.size() - 1));
        assertTrue(dirs.contains(Path.of("/lib64")), dirs.toString());
    }

    @Test
    void asRootACandidateOthersCouldChangeIsPassedOverAndNamedWhenItIsTheOnlyOne() throws Exception {
        TrustFixtures.assumeRoot();
        Path planted = lib(dir.resolve("user/libx.so.1"));
        TrustFixtures.nobodys(planted.getParent());
        Path real = lib(dir.resolve("system/libx.so.1"));
        assertEquals(real, TrustedLibrary.search("libx.so.1", List.of(planted.getParent(), real.getParent()), true),
                "the user's copy neither loads nor hides the real one");
        UntrustedPathException e = assertThrows(UntrustedPathException.class,
                () -> TrustedLibrary.search("libx.so.1", List.of(planted.getParent()), true));
        assertEquals("libx.so.1 was found only where other users can change it: directory " + planted.getParent()
                + " is owned by uid 65534, not root", e.getMessage());
        assertEquals("directory " + planted.getParent() + " is owned by uid 65534, not root",
                assertThrows(UntrustedPathException.class, () -> TrustedLibrary.locate(planted.toString(), true)).getMessage());
        assertEquals(planted, TrustedLibrary.locate(planted.toString(), false), "not root: the rule does not apply");
        Files.setAttribute(real, "unix:mode", 0100666);
        assertEquals(real + " is writable by every user (mode 666)",
                assertThrows(UntrustedPathException.class, () -> TrustedLibrary.locate(real.toString(), true)).getMessage());
    }
}
