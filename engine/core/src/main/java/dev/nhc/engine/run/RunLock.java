package dev.nhc.engine.run;

import dev.nhc.engine.process.CurrentProcess;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;

/**
 * One run at a time per node: slurmd starts a new health check every interval even while the last
 * one still runs. An OS file lock in {@code state_dir} (released by the kernel if the holder dies,
 * so a killed run never leaves a stale lock); the holder writes its pid and start time so that the
 * run that loses can say who holds it and for how long.
 */
public final class RunLock implements AutoCloseable {
    private final FileChannel channel;
    private final FileLock lock;

    private RunLock(FileChannel channel, FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    /** Takes the lock, or returns empty with {@code holder[0]} describing who holds it. */
    public static Optional<RunLock> tryAcquire(Path stateDir, String[] holder) throws IOException {
        return tryAcquire(stateDir, holder, "");
    }

    /** The daemon's lock text starts with this: a run that finds the lock held can tell the daemon from another run. */
    public static final String DAEMON = "daemon";

    /**
     * As {@link #tryAcquire(Path, String[])}, the holder saying what it is ({@link #DAEMON} for the
     * daemon, which holds the lock for its life).
     */
    public static Optional<RunLock> tryAcquire(Path stateDir, String[] holder, String what) throws IOException {
        Files.createDirectories(stateDir);
        Path file = stateDir.resolve("nhc.lock");
        FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
        FileLock l;
        try {
            l = ch.tryLock();
        } catch (OverlappingFileLockException e) {
            l = null;
        }
        if (l == null) {
            ByteBuffer buf = ByteBuffer.allocate(256);
            ch.read(buf, 0);
            ch.close();
            holder[0] = describe(new String(buf.array(), 0, buf.position(), StandardCharsets.UTF_8).trim(), System.currentTimeMillis());
            return Optional.empty();
        }
        ch.truncate(0);
        // Epoch milliseconds rather than an ISO time: formatting one costs a cold JVM ~4 ms of
        // java.time set-up on every run, and the run that reads it shows an age instead.
        String text = (what.isEmpty() ? "" : what + " ") + "pid " + CurrentProcess.pid() + " started " + System.currentTimeMillis();
        ch.write(ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)), 0);
        return Optional.of(new RunLock(ch, l));
    }

    /** Whether the holder described by {@code holder[0]} (after a failed tryAcquire) is the daemon. */
    public static boolean heldByDaemon(String description) {
        return description != null && description.startsWith(DAEMON + " ");
    }

    /** "pid 4242, started 12 s ago" from the holder's "pid 4242 started EPOCH_MS"; other text as it is. */
    static String describe(String text, long nowMillis) {
        if (text.startsWith(DAEMON + " ")) {
            return DAEMON + " " + describe(text.substring(DAEMON.length() + 1), nowMillis);
        }
        String[] words = text.split(" ");
        if (words.length == 4 && words[0].equals("pid") && words[2].equals("started")) {
            try {
                long age = Math.max(0, nowMillis - Long.parseLong(words[3])) / 1000;
                return "pid " + words[1] + ", started " + age + " s ago";
            } catch (NumberFormatException e) {
                return text;
            }
        }
        return text.isEmpty() ? "another nhc run" : text;
    }

    @Override
    public void close() throws IOException {
        try {
            lock.release();
        } finally {
            channel.close();
        }
    }
}
