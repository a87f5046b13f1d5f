package dev.nhc.engine.state;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * Writes a section's next generation so that whatever point a process is killed at, the newest
 * generation it committed is whole in at least one file, and then in two:
 * <ol>
 * <li>{@link Step#WRITE_TEMP}, {@link Step#SYNC_TEMP}: the new generation to a temp file beside
 *     {@code NAME.json}, on disk;</li>
 * <li>{@link Step#RENAME_TO_CURRENT}, {@link Step#SYNC_DIRECTORY}: renamed over {@code NAME.json}
 *     (readers see the old or the new file, never a part), the rename on disk;</li>
 * <li>{@link Step#RECORD_IN_JOURNAL}: its number in the {@link StateJournal};</li>
 * <li>{@link Step#WRITE_COPY}, {@link Step#RENAME_COPY}: the same bytes to a second temp file,
 *     renamed over {@code NAME.json.prev}.</li>
 * </ol>
 * Until the last step {@code NAME.json.prev} is the generation before; after it both files hold
 * the new one, so one damaged file never loses a latched fault. A kill before the first rename
 * leaves a temp file, recovered by the next run when whole and newer ({@link OrphanedTemps}); the
 * copy is not synced, since a power cut that tears it leaves {@code NAME.json}, which was. Files are
 * created with O_EXCL and owner-only, and renamed over whatever is at the target (a link is
 * replaced, never followed).
 */
final class GenerationWriter {
    /** The steps of one write, in order; a test stops a write before one as a killed process would ({@link #stopBefore}). */
    enum Step { WRITE_TEMP, SYNC_TEMP, RENAME_TO_CURRENT, SYNC_DIRECTORY, RECORD_IN_JOURNAL, WRITE_COPY, RENAME_COPY }

    /** What a write stopped by a test throws: the state directory stays exactly as that step found it, as after a kill. */
    static final class Stopped extends RuntimeException {
        Stopped(Step step) {
            super("state write stopped before " + step + " (a test's crash)");
        }
    }

    /** What records the generation once its file is in place. */
    interface Journal {
        void record() throws IOException;
    }

    private static final FileAttribute<?> OWNER_ONLY = PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));

    private GenerationWriter() {
    }

    /** Writes {@code text} as {@code current} and its {@code copy}; {@code stopBefore}: null for every real write. */
    static void write(Path current, Path copy, String text, Journal journal, Step stopBefore) throws IOException {
        new Steps(stopBefore).write(current, copy, text, journal);
    }

    private record Steps(Step stopBefore) {
        void write(Path current, Path copy, String text, Journal journal) throws IOException {
            byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
            Path dir = current.getParent();
            Path tmp = OrphanedTemps.name(current);
            step(Step.WRITE_TEMP);
            try (FileChannel ch = create(tmp, bytes)) {
                step(Step.SYNC_TEMP);
                ch.force(true);
            } catch (IOException e) {
                Files.deleteIfExists(tmp);
                throw e;
            }
            step(Step.RENAME_TO_CURRENT);
            try {
                rename(tmp, current);
            } catch (IOException e) {
                Files.deleteIfExists(tmp);
                throw e;
            }
            step(Step.SYNC_DIRECTORY);
            fsyncDirectory(dir);
            step(Step.RECORD_IN_JOURNAL);
            try {
                journal.record();
            } catch (IOException e) {
                // The journal stays older than the file: it can only tell less, never claim a generation no file holds.
            }
            step(Step.WRITE_COPY);
            Path second = OrphanedTemps.name(copy);
            try {
                create(second, bytes).close();
                step(Step.RENAME_COPY);
                rename(second, copy);
            } catch (IOException e) {
                // NAME.json holds the generation; the copy is the generation before until the next write makes it whole
                Files.deleteIfExists(second);
            }
        }

        private void step(Step s) {
            if (s == stopBefore) {
                throw new Stopped(s);
            }
        }
    }

    private static FileChannel create(Path tmp, byte[] bytes) throws IOException {
        FileChannel ch = FileChannel.open(tmp, Set.of(StandardOpenOption.WRITE, StandardOpenOption.CREATE_NEW), OWNER_ONLY);
        try {
            ByteBuffer buf = ByteBuffer.wrap(bytes);
            while (buf.hasRemaining()) {
                ch.write(buf);
            }
            return ch;
        } catch (IOException e) {
            ch.close();
            throw e;
        }
    }

    /** rename(2): replaces a link at {@code to} rather than following it. */
    static void rename(Path from, Path to) throws IOException {
        try {
            Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(from, to, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    private static void fsyncDirectory(Path dir) {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException ignored) {
            // Some filesystems cannot open a directory for fsync; the rename itself is still atomic.
        }
    }
}
