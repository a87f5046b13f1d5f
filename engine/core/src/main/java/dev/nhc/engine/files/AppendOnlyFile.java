package dev.nhc.engine.files;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * A file nhc appends to (its log file), opened so that root never writes through someone else's
 * link or into someone else's file: the directories up to it pass {@link TrustedPath}, the file is
 * opened without following a link (created owner-only if missing), and the open descriptor must
 * be a regular file, root's and writable by no one else. A FIFO is refused before it is opened
 * (opening one for writing waits for a reader).
 */
public final class AppendOnlyFile {
    private static final FileAttribute<?> OWNER_ONLY = PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));

    private AppendOnlyFile() {
    }

    public static FileChannel open(Path file, boolean rootOnly) throws IOException {
        Path abs = file.toAbsolutePath();
        if (abs.getParent() == null) {
            throw new IOException("is not a file");
        }
        TrustedPath.Resolved dir = TrustedPath.resolve(abs.getParent(), rootOnly);
        if (!dir.stat().isDirectory()) {
            throw new IOException(abs.getParent() + " is " + dir.stat().kind() + ", not a directory");
        }
        Path target = dir.real().resolve(abs.getFileName());
        try {
            FileStat st = FileStat.lstat(target);
            if (!st.isRegular()) {
                throw new UntrustedPathException(target + " is " + st.kind() + ", not a regular file");
            }
        } catch (NoSuchFileException missing) {
            // created below, owner-only
        }
        FileChannel ch = FileChannel.open(target, Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.APPEND, LinkOption.NOFOLLOW_LINKS), OWNER_ONLY);
        try {
            FileStat st = FileStat.stat(Path.of("/proc/self/fd/" + FileDescriptors.numberOf(ch, target)));
            if (!st.isRegular()) {
                throw new UntrustedPathException(target + " is " + st.kind() + ", not a regular file");
            }
            if (rootOnly) {
                TrustedPath.checkFile(target, st);
            }
            return ch;
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }
}
