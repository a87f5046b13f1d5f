package dev.nhc.checks.logfile;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.zip.CRC32;

/**
 * What tells one log file from another between runs: its device and inode, and checksums of a
 * bounded prefix and of the bytes just before the read offset (a file rewritten in place keeps its
 * inode and may keep its first bytes). Also finds where a rotated file went.
 */
public final class LogFile {
    /** How many bytes a head or tail checksum covers. */
    public static final int CHECKSUM_BYTES = 256;
    /** Rotated logs that are compressed are not text to read. */
    private static final Set<String> COMPRESSED = Set.of(".gz", ".xz", ".bz2", ".zst", ".lz4", ".z");
    /** A directory such as /var/log may be large; rotated names are looked at up to this many. */
    private static final int MAX_CANDIDATES = 1000;

    /** Device, inode and size of a regular file. */
    public record Id(long device, long inode, long size) {
    }

    /**
     * Where a file was read up to, and what it looked like then: its size, and CRC-32s of its first
     * {@code headLen} bytes and of the {@code tailLen} bytes before {@code offset}. An unknown
     * size, or a checksum not kept, is -1 (length and CRC both).
     */
    public record Position(long device, long inode, long size, long offset, int headLen, long headCrc, int tailLen, long tailCrc) {
    }

    private LogFile() {
    }

    /**
     * {@code followLinks}: the configured log path may be a link; a rotated file found by inode must
     * not be. {@code name}: the file as errors name it ("kernel log /var/log/kern.log"). Only a
     * regular file is a log: a FIFO or a device at its path would block or never end.
     */
    static Id id(Path p, boolean followLinks, String name) throws IOException {
        LinkOption[] opts = followLinks ? new LinkOption[0] : new LinkOption[] {LinkOption.NOFOLLOW_LINKS};
        BasicFileAttributes basic;
        try {
            basic = Files.readAttributes(p, BasicFileAttributes.class, opts);
        } catch (NoSuchFileException e) {
            // no file in the message: it is in the name, and the reason alone is what users see
            throw new NoSuchFileException(null, null, "cannot read " + name + ": no such file");
        }
        if (!basic.isRegularFile()) {
            throw new IOException("cannot read " + name + ": not a regular file");
        }
        try {
            Map<String, Object> unix = Files.readAttributes(p, "unix:dev,ino", opts);
            return new Id(((Number) unix.get("dev")).longValue(), ((Number) unix.get("ino")).longValue(), basic.size());
        } catch (UnsupportedOperationException | IllegalArgumentException e) {
            throw new IOException("cannot read " + name + ": this system does not give files' inode numbers");
        }
    }

    /** CRC-32 of {@code len} bytes (at most {@link #CHECKSUM_BYTES}) from {@code from}; fewer when the file is shorter. */
    static long crc(FileChannel ch, long from, int len) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(Math.max(0, Math.min(len, CHECKSUM_BYTES)));
        long pos = from;
        while (b.hasRemaining()) {
            int n = ch.read(b, pos);
            if (n < 0) {
                break;
            }
            pos += n;
        }
        CRC32 crc = new CRC32();
        crc.update(b.array(), 0, b.position());
        return crc.getValue();
    }

    /**
     * The file that used to be {@code log} and was renamed by rotation: in the same directory,
     * named like it ({@code kern.log.1}, {@code kern.log-20261122}), not compressed, a regular
     * file itself (not a link), with the given device and inode.
     */
    static Optional<Path> rotated(Path log, long device, long inode) {
        Path dir = log.toAbsolutePath().getParent();
        String base = log.getFileName().toString();
        int seen = 0;
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir, e -> isRotatedName(base, e.getFileName().toString()))) {
            for (Path candidate : entries) {
                if (++seen > MAX_CANDIDATES) {
                    break;
                }
                try {
                    Id id = id(candidate, false, candidate.toString());
                    if (id.device() == device && id.inode() == inode) {
                        return Optional.of(candidate);
                    }
                } catch (IOException e) {
                    // a link, a directory, or gone meanwhile: not the rotated log
                }
            }
        } catch (IOException e) {
            // an unreadable directory: nothing can be followed
        }
        return Optional.empty();
    }

    static boolean isRotatedName(String base, String name) {
        if (name.length() <= base.length() + 1 || !name.startsWith(base)) {
            return false;
        }
        char sep = name.charAt(base.length());
        if (sep != '.' && sep != '-' && sep != '_') {
            return false;
        }
        int dot = name.lastIndexOf('.');
        return dot < 0 || !COMPRESSED.contains(name.substring(dot).toLowerCase(java.util.Locale.ROOT));
    }
}
