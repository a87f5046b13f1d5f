package dev.nhc.checks.logfile;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;

/**
 * A log file that a program appends to and that rotation renames now and then, read from where
 * the last run stopped. The caller keeps the {@link LogFile.Position} between runs (a
 * {@link LogFileCursor} in its check's state) and scans the lines itself ({@link LineScanner}).
 *
 * <ul>
 * <li>The same file, grown: read from the stored offset.</li>
 * <li>Renamed by rotation ({@code fabricmanager.log.1}, found again by its inode in the same
 *     directory, never through a link): the lines appended to it after the stored offset are read
 *     first, then the new file from its start.</li>
 * <li>Truncated, replaced, or rewritten in place (other bytes at its start or before the offset):
 *     read from its start.</li>
 * </ul>
 * When the scan stops early in a rotated file, the position kept is in that file, so that the
 * next run goes on there.
 */
public final class GrowingLogFile {

    /** The caller's scan of one file's lines. */
    public interface Lines {
        /** Scans {@code ch} from {@code offset} and returns the offset reached, as {@link LineScanner#scan} does. */
        long scan(FileChannel ch, long offset) throws IOException;

        /** Whether a scan so far stopped before the end of its file (a deadline, a line bound): the rest is for the next run. */
        boolean stopped();
    }

    /**
     * What one read did.
     *
     * @param file      the file the position is in: the log, or its rotated predecessor when the scan stopped there
     * @param position  where the next read goes on
     * @param restarted the log was read from its start (no position, or the position did not hold)
     * @param stopped   the scan stopped before the end: the rest is read next run
     */
    public record Read(Path file, LogFile.Position position, boolean restarted, boolean stopped) {
    }

    private final Path path;
    private final String name;

    /** {@code name}: the file as errors name it, e.g. "kernel log /var/log/kern.log". */
    public GrowingLogFile(Path path, String name) {
        this.path = path;
        this.name = name;
    }

    /** Reads what was appended since {@code was} (null: the whole file) and says where to go on. */
    public Read read(LogFile.Position was, Lines lines) throws IOException {
        LogFile.Id now = LogFile.id(path, true, name);
        if (was != null && (was.device() != now.device() || was.inode() != now.inode())) {
            Optional<Path> old = LogFile.rotated(path, was.device(), was.inode());
            if (old.isPresent()) {
                LogFile.Position rest = readRest(old.get(), was, lines);
                if (rest != null && lines.stopped()) {
                    return new Read(old.get(), rest, false, true);
                }
            }
        }
        FileChannel opened = open();
        // The identity was read from the path before opening: a rotation in between would save the
        // new file's offset under the old inode. Stat again; if the path moved on, open again.
        for (int tries = 1; ; tries++) {
            LogFile.Id after;
            try {
                after = LogFile.id(path, true, name);
            } catch (IOException | RuntimeException e) {
                opened.close();
                throw e;
            }
            if (after.device() == now.device() && after.inode() == now.inode()) {
                break;
            }
            opened.close();
            if (tries == 3) {
                throw new IOException("cannot read " + name + ": it was replaced again and again while nhc opened it");
            }
            now = after;
            opened = open();
        }
        try (FileChannel ch = opened) {
            boolean restart = was == null || differs(ch, was, now);
            long end = lines.scan(ch, restart ? 0 : was.offset());
            return new Read(path, position(ch, now, end), restart, lines.stopped());
        }
    }

    /** Every line from the start, no position kept or returned (a capture). */
    public void readAll(Lines lines) throws IOException {
        LogFile.id(path, true, name);
        try (FileChannel ch = open()) {
            lines.scan(ch, 0);
        }
    }

    private FileChannel open() throws IOException {
        try {
            return FileChannel.open(path, StandardOpenOption.READ);
        } catch (NoSuchFileException e) {
            throw new NoSuchFileException(null, null, "cannot read " + name + ": no such file"); // removed since it was looked at
        }
    }

    /** The rest of a rotated file from where the last run stopped; null when it is not the file that was read (then it is left alone). */
    private static LogFile.Position readRest(Path old, LogFile.Position was, Lines lines) {
        try (FileChannel ch = FileChannel.open(old, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            LogFile.Id id = LogFile.id(old, false, old.toString());
            if (differs(ch, was, id)) {
                return null;
            }
            return position(ch, id, lines.scan(ch, was.offset()));
        } catch (IOException e) {
            return null; // gone or unreadable: the new file is still read
        }
    }

    /** Whether the file is not the one read up to {@code was}: another inode, shorter, or other bytes at its start or before the offset. */
    private static boolean differs(FileChannel ch, LogFile.Position was, LogFile.Id now) throws IOException {
        if (was.device() != now.device() || was.inode() != now.inode()) {
            return true;
        }
        if (now.size() < was.offset() || now.size() < was.size()) {
            return true; // truncated (perhaps then written again)
        }
        if (was.headLen() >= 0 && LogFile.crc(ch, 0, was.headLen()) != was.headCrc()) {
            return true;
        }
        return was.tailLen() >= 0 && LogFile.crc(ch, was.offset() - was.tailLen(), was.tailLen()) != was.tailCrc();
    }

    private static LogFile.Position position(FileChannel ch, LogFile.Id id, long end) throws IOException {
        long size = Math.max(id.size(), end);
        int headLen = (int) Math.min(LogFile.CHECKSUM_BYTES, size);
        int tailLen = (int) Math.min(LogFile.CHECKSUM_BYTES, end);
        return new LogFile.Position(id.device(), id.inode(), size, end, headLen, LogFile.crc(ch, 0, headLen),
                tailLen, LogFile.crc(ch, end - tailLen, tailLen));
    }
}
