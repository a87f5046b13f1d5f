package dev.nhc.engine.files;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The descriptor number of an open {@link FileChannel}, which Java does not tell without opening up
 * its internals. The channel is moved to a position no other descriptor has (a gigabyte past its
 * end plus a counter: legal on a file opened for reading, and it changes nothing), and the
 * descriptor whose /proc/self/fdinfo shows that position is the one (only descriptors whose link
 * names the file are looked at, unless none is). With the number, the open
 * file can be examined (stat of /proc/self/fd/N is fstat) and handed to a child as
 * /proc/PID/fd/N.
 */
final class FileDescriptors {
    private static final Path FD_DIR = Path.of("/proc/self/fd");
    private static final Path FDINFO_DIR = Path.of("/proc/self/fdinfo");
    private static final AtomicLong COUNTER = new AtomicLong();

    private FileDescriptors() {
    }

    /**
     * The number of the descriptor behind {@code ch}, a channel on the regular file {@code file}
     * (its real path); the channel's position is left at 0. Only descriptors whose link names
     * that file have their position looked at.
     */
    static int numberOf(FileChannel ch, Path file) throws IOException {
        long marker = ch.size() + (1L << 30) + COUNTER.incrementAndGet();
        ch.position(marker);
        try {
            int fd = find(marker, file.toString());
            // The kernel may name the file otherwise (a bind mount, a file deleted meanwhile): then look at every descriptor.
            fd = fd >= 0 ? fd : find(marker, null);
            if (fd >= 0) {
                return fd;
            }
        } finally {
            ch.position(0);
        }
        throw new IOException("cannot find the descriptor of the file nhc opened in /proc/self/fd (is /proc mounted?)");
    }

    private static int find(long marker, String file) throws IOException {
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(FD_DIR)) {
            for (Path fd : fds) {
                String n = fd.getFileName().toString();
                if ((file == null || leadsTo(fd, file)) && position(n) == marker) {
                    return Integer.parseInt(n);
                }
            }
        }
        return -1;
    }

    private static boolean leadsTo(Path fd, String file) {
        try {
            return Files.readSymbolicLink(fd).toString().equals(file);
        } catch (IOException | RuntimeException e) {
            return false; // closed meanwhile
        }
    }

    private static long position(String fd) {
        try {
            String info = new String(Files.readAllBytes(FDINFO_DIR.resolve(fd)), StandardCharsets.US_ASCII);
            int at = info.startsWith("pos:") ? 0 : info.indexOf("\npos:") + 1;
            if (at < 0 || !info.startsWith("pos:", at)) {
                return -1;
            }
            int end = info.indexOf('\n', at);
            return Long.parseLong(info.substring(at + 4, end < 0 ? info.length() : end).trim());
        } catch (IOException | RuntimeException e) {
            return -1; // closed meanwhile by another thread, or not a descriptor this process may look at
        }
    }
}
