package dev.nhc.engine.files;


import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A regular file opened for reading after {@link TrustedPath} has walked to it, and checked again
 * on the open descriptor: it is the file that was walked to (same device and inode), and under the
 * root-only rule root's and writable by no one else. What nhc then reads (a config) it reads from
 * this descriptor, and what it executes (a script) it executes as {@link #execPath()}, so that the
 * file checked is the file used. FIFOs, devices and directories are refused before anything is
 * opened: opening a FIFO waits for a writer, and /dev/zero never ends.
 */
public final class OpenedFile implements Closeable {
    private final Path path;
    private final FileChannel channel;
    private final int fd;
    private final FileStat stat;

    private OpenedFile(Path path, FileChannel channel, int fd, FileStat stat) {
        this.path = path;
        this.channel = channel;
        this.fd = fd;
        this.stat = stat;
    }

    /** The file is not a regular file; the message says what it is ("is a FIFO, not a regular file"). */
    public static final class NotRegularFileException extends IOException {
        private static final long serialVersionUID = 1L;

        NotRegularFileException(String message) {
            super(message);
        }
    }

    /** More bytes than the reader accepts. */
    public static final class TooLargeException extends IOException {
        private static final long serialVersionUID = 1L;
        private final long size;

        TooLargeException(long size, int max) {
            super("is " + size + " bytes; at most " + max + " are read");
            this.size = size;
        }

        public long size() {
            return size;
        }
    }

    /**
     * Opens {@code file} (made absolute against the working directory). Throws
     * {@link java.nio.file.NoSuchFileException}, {@link NotRegularFileException},
     * {@link UntrustedPathException} (root-only rule) or another IOException.
     */
    public static OpenedFile open(Path file, boolean rootOnly) throws IOException {
        TrustedPath.Resolved r = TrustedPath.resolve(file.toAbsolutePath(), rootOnly);
        if (!r.stat().isRegular()) {
            String real = r.real().equals(file.toAbsolutePath()) ? "" : " (" + r.real() + ")";
            throw new NotRegularFileException("is " + r.stat().kind() + real + ", not a regular file");
        }
        FileChannel ch = FileChannel.open(r.real(), StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);
        try {
            int fd = FileDescriptors.numberOf(ch, r.real());
            FileStat st = FileStat.stat(Path.of("/proc/self/fd/" + fd));
            if (!st.sameFile(r.stat()) || !st.isRegular()) {
                throw new UntrustedPathException(r.real() + " was replaced while nhc opened it");
            }
            if (rootOnly) {
                TrustedPath.checkFile(r.real(), st);
            }
            return new OpenedFile(r.real(), ch, fd, st);
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    /** The real path it was opened by. */
    public Path path() {
        return path;
    }

    /** The open file's attributes, as fstat gave them. */
    public FileStat stat() {
        return stat;
    }

    /** A path that leads to this open file for as long as it stays open, also from a child process: /proc/PID/fd/N. */
    public String execPath() {
        return "/proc/" + CurrentProcess.pid() + "/fd/" + fd;
    }

    /** The whole content, read from the descriptor; more than {@code max} bytes is an error rather than a long wait or an exhausted heap. */
    public byte[] readAll(int max) throws IOException {
        if (stat.size() > max) {
            throw new TooLargeException(stat.size(), max);
        }
        ByteBuffer buf = ByteBuffer.allocate((int) Math.min(max + 1L, Math.max(stat.size() + 1, 8192)));
        long pos = 0;
        while (true) {
            if (!buf.hasRemaining()) {
                if (buf.capacity() > max) {
                    throw new TooLargeException(Math.max(stat.size(), pos), max);
                }
                ByteBuffer bigger = ByteBuffer.allocate((int) Math.min(max + 1L, buf.capacity() * 2L));
                buf.flip();
                bigger.put(buf);
                buf = bigger;
            }
            int n = channel.read(buf, pos);
            if (n < 0) {
                break;
            }
            pos += n;
        }
        byte[] out = new byte[buf.position()];
        buf.flip();
        buf.get(out);
        return out;
    }

    /** Up to {@code max} bytes from the start, e.g. to look at a script's #! line. */
    public byte[] head(int max) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(max);
        long pos = 0;
        int n;
        while (buf.hasRemaining() && (n = channel.read(buf, pos)) > 0) {
            pos += n;
        }
        byte[] out = new byte[buf.position()];
        buf.flip();
        buf.get(out);
        return out;
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
