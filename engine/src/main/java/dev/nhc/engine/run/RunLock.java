package dev.nhc.engine.run;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.Optional;

/**
 * One run at a time per node: slurmd starts a new health check every interval even while the last
 * one still runs. An OS file lock in {@code state_dir} (released by the kernel if the holder dies,
 * so a killed run never leaves a stale lock); the holder writes its pid and start time so that the
 * run that loses can say who holds it.
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
            String text = new String(buf.array(), 0, buf.position(), StandardCharsets.UTF_8).trim();
            holder[0] = text.isEmpty() ? "another nhc run" : text;
            return Optional.empty();
        }
        ch.truncate(0);
        ch.write(ByteBuffer.wrap(("pid " + ProcessHandle.current().pid() + " since " + Instant.now()).getBytes(StandardCharsets.UTF_8)), 0);
        return Optional.of(new RunLock(ch, l));
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
