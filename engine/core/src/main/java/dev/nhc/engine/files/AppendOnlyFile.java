package dev.nhc.engine.files;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
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
 * (opening one for writing waits for a reader), also one another user slips in after the check
 * (see {@link #openRegular}).
 *
 * <p>As root, two rules more: the file's own directory must be writable by root alone, a sticky
 * one such as /tmp included, since there anyone may create the name first (a file of theirs, or,
 * where fs.protected_hardlinks is off, a hard link to a file of root's such as /etc/shadow); and
 * a file with more than one link is refused, for root would append to every name it has. The
 * config loader applies the same rules to {@code settings.log_file} ({@link #check}).
 */
public final class AppendOnlyFile {
    private static final FileAttribute<?> OWNER_ONLY = PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));

    private AppendOnlyFile() {
    }

    /**
     * Opens {@code target} for appending, refusing anything but a regular file before it is opened.
     * A file that was missing is created with O_EXCL (CREATE_NEW): had another user put a FIFO there
     * since the lstat (a sticky directory such as /tmp lets them), plain CREATE would open it and
     * root would wait forever for a reader. A file that existed is opened without CREATE: only who may
     * replace that file (its directory's writers; no one but root where rootOnly holds) could swap a
     * FIFO in. Either way a change in between sends us back to the lstat, a few times at most.
     */
    private static FileChannel openRegular(Path target) throws IOException {
        for (int attempt = 0; ; attempt++) {
            boolean exists;
            try {
                FileStat st = FileStat.lstat(target);
                if (!st.isRegular()) {
                    throw new UntrustedPathException(target + " is " + st.kind() + ", not a regular file");
                }
                exists = true;
            } catch (NoSuchFileException missing) {
                exists = false;
            }
            try {
                return exists
                        ? FileChannel.open(target, Set.of(StandardOpenOption.WRITE, StandardOpenOption.APPEND, LinkOption.NOFOLLOW_LINKS))
                        : FileChannel.open(target, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
                                StandardOpenOption.APPEND, LinkOption.NOFOLLOW_LINKS), OWNER_ONLY);
            } catch (FileAlreadyExistsException | NoSuchFileException changed) {
                if (attempt >= 2) {
                    throw new IOException(target + " keeps changing while it is opened", changed);
                }
            }
        }
    }

    public static FileChannel open(Path file, boolean rootOnly) throws IOException {
        Path target = place(file, rootOnly);
        FileChannel ch = openRegular(target);
        try {
            FileStat st = FileStat.stat(Path.of("/proc/self/fd/" + FileDescriptors.numberOf(ch, target)));
            if (!st.isRegular()) {
                throw new UntrustedPathException(target + " is " + st.kind() + ", not a regular file");
            }
            if (rootOnly) {
                checkOwnFile(target, st);
            }
            return ch;
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    /**
     * The root-only rule for a file nhc will append to, without opening or creating anything (the
     * config loader's check of {@code settings.log_file}): its directory root's alone, and the
     * file, if it is there, a regular file of root's with one link, writable by no one else.
     */
    public static void check(Path file) throws IOException {
        Path target = place(file, true);
        FileStat st;
        try {
            st = FileStat.lstat(target);
        } catch (NoSuchFileException missing) {
            return; // created owner-only when first opened, in a directory only root can write
        }
        if (!st.isRegular()) {
            throw new UntrustedPathException(target + " is " + st.kind() + ", not a regular file");
        }
        checkOwnFile(target, st);
    }

    /** Where the file is: its directory walked to (and as root, writable by root alone), and the file's real path in it. */
    private static Path place(Path file, boolean rootOnly) throws IOException {
        Path abs = file.toAbsolutePath();
        if (abs.getParent() == null) {
            throw new IOException("is not a file");
        }
        TrustedPath.Resolved dir = TrustedPath.resolve(abs.getParent(), rootOnly);
        if (!dir.stat().isDirectory()) {
            throw new IOException(abs.getParent() + " is " + dir.stat().kind() + ", not a directory");
        }
        if (rootOnly && dir.stat().writableByOthers()) {
            throw new UntrustedPathException("directory " + dir.real() + " is " + dir.stat().whoElseCanWrite()
                    + ": another user can put a file or link of theirs in the log file's place; choose a directory only root can write");
        }
        return dir.real().resolve(abs.getFileName());
    }

    private static void checkOwnFile(Path target, FileStat st) throws UntrustedPathException {
        TrustedPath.checkFile(target, st);
        if (st.nlink() > 1) {
            throw new UntrustedPathException(target + " has " + st.nlink() + " links (a hard link): appending to it would also write to the other names");
        }
    }
}
