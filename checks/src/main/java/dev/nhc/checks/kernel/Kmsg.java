package dev.nhc.checks.kernel;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Native;

import java.io.Closeable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * {@code /dev/kmsg} opened with O_NONBLOCK through libc: each read returns one record, and EAGAIN
 * says "no more for now". Java's own file APIs cannot open a device non-blocking, and a blocking
 * read at the end of the buffer would wait for the next kernel message.
 */
final class Kmsg implements Closeable {
    private static final int O_RDONLY = 0;
    private static final int O_NONBLOCK = 04000;
    private static final int O_CLOEXEC = 02000000;
    private static final int EINTR = 4;
    private static final int EAGAIN = 11;
    private static final int EINVAL = 22;
    private static final int EPIPE = 32;

    interface LibC extends Library {
        int open(String path, int flags) throws LastErrorException;

        long read(int fd, byte[] buf, long count) throws LastErrorException;

        int close(int fd);
    }

    private static LibC libc;
    private final String path;
    private final int fd;
    private final byte[] buf = new byte[16 * 1024];
    private long overwritten;

    private Kmsg(String path, int fd) {
        this.path = path;
        this.fd = fd;
    }

    private static synchronized LibC libc() throws IOException {
        if (libc == null) {
            try {
                libc = Native.load("c", LibC.class);
            } catch (UnsatisfiedLinkError | NoClassDefFoundError e) {
                throw new IOException("cannot open the kernel log device without libc through JNA: " + e.getMessage());
            }
        }
        return libc;
    }

    static Kmsg open(String path) throws IOException {
        LibC c = libc();
        try {
            return new Kmsg(path, c.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC));
        } catch (LastErrorException e) {
            throw new IOException("cannot open " + path + ": errno " + e.getErrorCode() + " (" + errnoText(e.getErrorCode()) + ")");
        }
    }

    /** The next record ("prio,seq,usec,flags;message\n KEY=value…"), or null at the end of the buffer. */
    String next() throws IOException {
        while (true) {
            try {
                long n = libc.read(fd, buf, buf.length);
                if (n <= 0) {
                    return null;
                }
                return new String(buf, 0, (int) n, StandardCharsets.UTF_8);
            } catch (LastErrorException e) {
                switch (e.getErrorCode()) {
                    case EAGAIN:
                        return null;
                    case EINTR:
                        continue;
                    case EPIPE:
                        // The record nhc was positioned at was overwritten; the next read returns the oldest one left.
                        overwritten++;
                        continue;
                    default:
                        throw new IOException("cannot read " + path + ": errno " + e.getErrorCode() + " (" + errnoText(e.getErrorCode()) + ")");
                }
            }
        }
    }

    long overwritten() {
        return overwritten;
    }

    private static String errnoText(int errno) {
        return switch (errno) {
            case 1 -> "operation not permitted: reading /dev/kmsg needs root or CAP_SYSLOG";
            case 2 -> "no such file";
            case 13 -> "permission denied: reading /dev/kmsg needs root or CAP_SYSLOG";
            case EINVAL -> "invalid argument";
            default -> "see errno(3)";
        };
    }

    @Override
    public void close() {
        libc.close(fd);
    }
}
