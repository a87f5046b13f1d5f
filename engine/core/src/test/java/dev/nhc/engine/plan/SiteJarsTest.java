package dev.nhc.engine.plan;

import dev.nhc.engine.files.TrustedJars;
import dev.nhc.engine.testing.TrustFixtures;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Site jars (lib/ext, /etc/nhc/ext): which are loaded, by the real class loader. */
class SiteJarsTest {
    @TempDir
    Path tmp;
    private Path dir;

    @BeforeEach
    void realDir() throws Exception {
        dir = TrustFixtures.rootOnly(tmp);
    }

    /** A jar holding one resource named {@code marker}, as a site's probe jar holds its service file. */
    private static Path jar(Path where, String marker) throws Exception {
        Files.createDirectories(where.getParent());
        try (OutputStream out = Files.newOutputStream(where); JarOutputStream j = new JarOutputStream(out)) {
            j.putNextEntry(new JarEntry(marker));
            j.write("x".getBytes(StandardCharsets.UTF_8));
            j.closeEntry();
        }
        return where;
    }

    @Test
    void withoutJarsNhcsOwnLoaderIsTheLoader() {
        ClassLoader nhc = getClass().getClassLoader();
        assertSame(nhc, SiteJars.loaderFor(List.of(dir.resolve("none"), dir), true, nhc));
    }

    @Test
    void theJarsOfEachDirectoryAreLoadedInNameOrder() throws Exception {
        Path ext = dir.resolve("ext");
        jar(ext.resolve("b.jar"), "b-marker");
        jar(ext.resolve("a.jar"), "a-marker");
        Files.writeString(ext.resolve("notes.txt"), "not a jar");
        TrustedJars.Found f = TrustedJars.in(ext, false);
        assertEquals(List.of(ext.resolve("a.jar").toUri().toURL(), ext.resolve("b.jar").toUri().toURL()), f.jars());
        ClassLoader l = SiteJars.loaderFor(List.of(ext), false, getClass().getClassLoader());
        assertNotNull(l.getResource("a-marker"));
        assertNotNull(l.getResource("b-marker"));
    }

    @Test
    void asRootAJarOthersCouldChangeIsLeftOutAndSaidWhy() throws Exception {
        TrustFixtures.assumeRoot();
        Path ext = dir.resolve("ext");
        jar(ext.resolve("good.jar"), "good-marker");
        Path writable = jar(ext.resolve("writable.jar"), "writable-marker");
        Files.setPosixFilePermissions(writable, PosixFilePermissions.fromString("rw-rw-r--"));
        Path theirs = jar(ext.resolve("theirs.jar"), "theirs-marker");
        TrustFixtures.nobodys(theirs);
        Path userDir = dir.resolve("user-ext");
        jar(userDir.resolve("x.jar"), "user-marker");
        TrustFixtures.nobodys(userDir);

        ClassLoader l = SiteJars.loaderFor(List.of(ext, userDir), true, getClass().getClassLoader());
        assertNotNull(l.getResource("good-marker"));
        assertNull(l.getResource("writable-marker"));
        assertNull(l.getResource("theirs-marker"));
        assertNull(l.getResource("user-marker"));

        TrustedJars.Found f = TrustedJars.in(ext, true);
        assertEquals(List.of(theirs + ": " + theirs + " is owned by uid 65534, not root; running as root, nhc loads only code that only root can change",
                writable + ": " + writable + " is writable by its group (mode 664); running as root, nhc loads only code that only root can change"),
                f.refused());
        List<String> dirRefused = TrustedJars.in(userDir, true).refused();
        assertEquals(1, dirRefused.size());
        assertTrue(dirRefused.get(0).startsWith("the jars in " + userDir + ": directory " + userDir + " is owned by uid 65534"), dirRefused.get(0));
        assertEquals(3, TrustedJars.in(ext, false).jars().size(), "not root: the rule does not apply");
    }
}
