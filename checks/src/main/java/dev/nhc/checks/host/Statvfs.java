package dev.nhc.checks.host;

import com.sun.jna.LastErrorException;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Platform;
import com.sun.jna.Pointer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * statvfs(3) of a path: space in blocks and, what {@link FileStore} cannot tell, inode counts.
 * The struct is read from a buffer at the offsets of 64-bit Linux (x86-64 and aarch64 glibc and
 * musl agree: eleven unsigned longs, then six spare ints, 112 bytes). Where the native call is not
 * available (JNA cannot load, another platform), space comes from {@link FileStore} and inodes are
 * reported as unknown.
 *
 * <p>The call holds no Java lock, so a statvfs stuck on a dead NFS server blocks only its own
 * thread, which the runner abandons at the check's timeout.
 */
final class Statvfs {
    /** Looked up when something is logged, not at class load: initialising logging costs a one-shot run ~50-100 ms it rarely needs. */
    private static Logger log() {
        return LoggerFactory.getLogger(Statvfs.class);
    }
    static final int SIZE = 112;

    /** Counts in fragments ({@code frsize}) for space, plain numbers for inodes; {@code files < 0}: inodes unknown. */
    record Result(long bsize, long frsize, long blocks, long bfree, long bavail,
                  long files, long ffree, long favail, long fsid, long flag, long namemax) {
        boolean inodesKnown() {
            return files >= 0;
        }

        /** ST_RDONLY: the filesystem itself is read-only, whatever the mount options say. */
        boolean readOnly() {
            return (flag & 1) != 0;
        }
    }

    private static volatile boolean nativeBroken;

    private Statvfs() {
    }

    static Result of(Path path) throws IOException {
        if (!nativeBroken && Platform.isLinux() && Native.LONG_SIZE == 8) {
            try {
                return viaLibc(path);
            } catch (LinkageError e) {
                nativeBroken = true;
                log().warn("statvfs through JNA is not available ({}); disk space comes from Java's FileStore and inode counts are unknown", e.toString());
            }
        }
        return viaFileStore(path);
    }

    static Result viaLibc(Path path) throws IOException {
        try (Memory buf = new Memory(SIZE)) {
            buf.clear();
            try {
                LibC.statvfs(path.toString(), buf);
            } catch (LastErrorException e) {
                throw new IOException("statvfs " + path + ": " + LibC.describe(e.getErrorCode()), e);
            }
            return new Result(buf.getLong(0), buf.getLong(8), buf.getLong(16), buf.getLong(24), buf.getLong(32),
                    buf.getLong(40), buf.getLong(48), buf.getLong(56), buf.getLong(64), buf.getLong(72), buf.getLong(80));
        }
    }

    static Result viaFileStore(Path path) throws IOException {
        FileStore fs;
        try {
            fs = Files.getFileStore(path);
        } catch (IOException e) {
            throw new IOException("statvfs " + path + ": " + SysFiles.reason(e), e);
        }
        long total = fs.getTotalSpace();
        long free = fs.getUnallocatedSpace();
        long avail = fs.getUsableSpace();
        return new Result(1, 1, total, free, avail, -1, -1, -1, 0, fs.isReadOnly() ? 1 : 0, 0);
    }

    /** Direct mapping: no proxy and no per-call reflection; loaded on first use, never by the probe's constructor. */
    private static final class LibC {
        static {
            Native.register(LibC.class, Platform.C_LIBRARY_NAME);   // naming the class spares JNA a reflective stack walk
        }

        static native int statvfs(String path, Pointer buf) throws LastErrorException;

        static native String strerror(int errnum);

        static String describe(int errno) {
            String s = strerror(errno);
            return (s == null ? "error" : s) + " (errno " + errno + ")";
        }
    }
}
