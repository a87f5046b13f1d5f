package dev.nhc.engine.files;

import dev.nhc.engine.config.Ownership;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The walk from / to a file. The root-only rule needs files owned by other users, so those tests
 * run as root (as CI does) and are skipped otherwise; resolution itself is tested as anyone.
 */
class TrustedPathTest {
    private static final int NOBODY = 65534;

    @TempDir
    Path tmp;
    private Path dir;

    @BeforeEach
    void realDir() throws Exception {
        dir = tmp.toRealPath();
    }

    private static void assumeRoot() {
        assumeTrue(Ownership.runningAsRoot(), "the root-only rule is about files other users own: only root can make them (CI runs as root)");
    }

    private Path file(String name, String mode) throws Exception {
        Path f = dir.resolve(name);
        Files.createDirectories(f.getParent());
        Files.writeString(f, "x");
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString(mode));
        return f;
    }

    private String refused(Path p) {
        return assertThrows(UntrustedPathException.class, () -> TrustedPath.resolve(p, true)).getMessage();
    }

    @Test
    void linksAbsoluteRelativeAndDotDotResolveAsTheKernelDoes() throws Exception {
        Path target = file("a/b/target", "rw-r--r--");
        Files.createSymbolicLink(dir.resolve("abs"), target);
        Files.createSymbolicLink(dir.resolve("a/rel"), Path.of("b/../b/target"));
        Files.createSymbolicLink(dir.resolve("a/b/up"), Path.of(".."));
        assertEquals(target, TrustedPath.resolve(dir.resolve("abs"), false).real());
        assertEquals(target, TrustedPath.resolve(dir.resolve("a/rel"), false).real());
        assertEquals(target, TrustedPath.resolve(dir.resolve("a/b/up/b/target"), false).real());
        assertTrue(TrustedPath.resolve(dir.resolve("a/b/up"), false).stat().isDirectory());
        assertThrows(NoSuchFileException.class, () -> TrustedPath.resolve(dir.resolve("a/nope"), false));
        assertFalse(TrustedPath.resolveMaybeMissing(dir.resolve("a/nope/deeper"), false).exists());
        Files.createSymbolicLink(dir.resolve("loop1"), dir.resolve("loop2"));
        Files.createSymbolicLink(dir.resolve("loop2"), dir.resolve("loop1"));
        FileSystemException loop = assertThrows(FileSystemException.class, () -> TrustedPath.resolve(dir.resolve("loop1"), false));
        assertTrue(loop.getMessage().contains("too many levels of symbolic links"), loop.getMessage());
    }

    @Test
    void asRootEveryDirectoryLinkAndTheFileMustBeRootsAndWritableByNoOneElse() throws Exception {
        assumeRoot();
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path ok = file("ok/conf", "rw-r--r--");
        assertEquals(ok, TrustedPath.resolve(ok, true).real());

        Path userDir = Files.createDirectories(dir.resolve("user"));
        Path inUserDir = file("user/conf", "rw-r--r--");
        Files.setAttribute(userDir, "unix:uid", NOBODY);
        assertEquals("directory " + userDir + " is owned by uid 65534, not root", refused(inUserDir));

        Path groupDir = Files.createDirectories(dir.resolve("group"));
        Path inGroupDir = file("group/conf", "rw-r--r--");
        Files.setPosixFilePermissions(groupDir, PosixFilePermissions.fromString("rwxrwxr-x"));
        assertEquals("directory " + groupDir + " is writable by its group (mode 775)", refused(inGroupDir));

        Path link = Files.createSymbolicLink(dir.resolve("ok/link"), ok);
        assertEquals(ok, TrustedPath.resolve(link, true).real(), "root's own link");
        Files.setAttribute(link, "unix:uid", NOBODY, java.nio.file.LinkOption.NOFOLLOW_LINKS);
        assertEquals("symbolic link " + link + " is owned by uid 65534, not root", refused(link));

        Path writable = file("ok/writable", "rw-rw-rw-");
        assertEquals(writable + " is writable by every user (mode 666)", refused(writable));
        Path owned = file("ok/owned", "rw-r--r--");
        Files.setAttribute(owned, "unix:uid", NOBODY);
        assertEquals(owned + " is owned by uid 65534, not root", refused(owned));
        // The link is root's, but what it leads to is not.
        Path toUser = Files.createSymbolicLink(dir.resolve("ok/to-user"), inUserDir);
        assertEquals("directory " + userDir + " is owned by uid 65534, not root", refused(toUser));
    }

    @Test
    void asRootAStickyDirectoryIsFineWhenWhatIsInItIsRoots() throws Exception {
        assumeRoot();
        Path sticky = Files.createDirectories(dir.resolve("sticky"));
        Files.setAttribute(sticky, "unix:mode", 01777); // like /tmp
        Path roots = file("sticky/roots", "rw-r--r--");
        assertEquals(roots, TrustedPath.resolve(roots, true).real());
        Path theirs = file("sticky/theirs", "rw-r--r--");
        Files.setAttribute(theirs, "unix:uid", NOBODY);
        assertEquals(theirs + " is owned by uid 65534, not root", refused(theirs));
        String missing = assertThrows(UntrustedPathException.class,
                () -> TrustedPath.resolveMaybeMissing(sticky.resolve("later/x"), true)).getMessage();
        assertEquals(sticky.resolve("later") + " does not exist, and directory " + sticky
                + " is writable by every user (mode 1777), so another user could create it", missing);
        assertFalse(TrustedPath.resolveMaybeMissing(dir.resolve("nothing/here"), true).exists(), "only root can create it");
    }

    @Test
    void anOpenedFileIsTheFileWalkedToAndIsReadFromItsDescriptor() throws Exception {
        Path f = file("conf", "rw-r--r--");
        Files.writeString(f, "hello");
        try (OpenedFile o = OpenedFile.open(f, false)) {
            assertEquals(f, o.path());
            // the descriptor found is this channel's: the same file, through the process's /proc entry
            assertTrue(o.execPath().matches("/proc/\\d+/fd/\\d+"), o.execPath());
            assertTrue(FileStat.stat(Path.of(o.execPath())).sameFile(FileStat.lstat(f)));
            Files.delete(f);
            Files.writeString(f, "another file at the same path");
            assertEquals("hello", new String(o.readAll(100)), "read from what was opened, not from the path again");
            assertThrows(OpenedFile.TooLargeException.class, () -> o.readAll(4));
        }
        OpenedFile.NotRegularFileException d = assertThrows(OpenedFile.NotRegularFileException.class, () -> OpenedFile.open(dir, false));
        assertEquals("is a directory, not a regular file", d.getMessage());
    }

    @Test
    void manyFilesOpenedAtOnceEachFindTheirOwnDescriptor() throws Exception {
        Path f = file("shared", "rw-r--r--");
        java.util.List<OpenedFile> open = new java.util.ArrayList<>();
        try {
            for (int i = 0; i < 20; i++) {
                open.add(OpenedFile.open(f, false));
            }
            assertEquals(20, open.stream().map(OpenedFile::execPath).distinct().count(), "one descriptor each");
        } finally {
            for (OpenedFile o : open) {
                o.close();
            }
        }
    }
}
