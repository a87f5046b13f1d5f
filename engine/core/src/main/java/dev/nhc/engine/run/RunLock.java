package dev.nhc.engine.run;

import dev.nhc.engine.config.Ownership;
import dev.nhc.engine.files.FileStat;
import dev.nhc.engine.files.IoReason;
import dev.nhc.engine.files.UntrustedPathException;
import dev.nhc.engine.files.CurrentProcess;
import dev.nhc.engine.state.StateDirectory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import java.util.Set;

/**
 * One run at a time per node: slurmd starts a new health check every interval even while the last
 * one still runs. An OS file lock on {@code nhc.lock} in {@code state_dir} (released by the kernel
 * if the holder dies, so a killed run never leaves a stale lock); the holder writes its pid and
 * start time, when the disk lets it, so that the run that loses can say who holds it and for how
 * long. Taking the lock writes nothing: on a full disk an existing {@code nhc.lock} is locked as
 * it is, and one that cannot be created is replaced by a lock file in /run/nhc (as root), or, if
 * that fails too, the run goes on unlocked and says so ({@link #note()}). The lock file is never
 * opened through a symbolic link, and the state directory must pass {@link StateDirectory}.
 */
public final class RunLock implements AutoCloseable {
    static final String FILE = "nhc.lock";
    /** Where the lock goes when the state directory cannot hold one; tmpfs on systemd hosts, root's. */
    static final Path FALLBACK_DIR = Path.of("/run/nhc");
    private static final FileAttribute<?> OWNER_ONLY = PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));
    private static final FileAttribute<?> PRIVATE_DIR = PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------"));

    private final FileChannel channel;
    private final FileLock lock;
    private final String note;

    private RunLock(FileChannel channel, FileLock lock, String note) {
        this.channel = channel;
        this.lock = lock;
        this.note = note;
    }

    /**
     * Takes the lock, or returns empty with {@code holder[0]} describing who holds it. Throws
     * {@link UntrustedPathException} when the state directory or the lock file is not safe to use
     * as root.
     */
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
        return tryAcquire(stateDir, holder, Ownership.runningAsRoot(), FALLBACK_DIR, what);
    }

    /**
     * The lock for a holder that keeps it for its life (the daemon). A one-shot run holds it for
     * seconds: wait for that, up to {@code patience}, rather than fail; then say who holds it.
     */
    public static RunLock acquireWaiting(Path stateDir, java.time.Duration patience, String what) throws IOException {
        long until = System.nanoTime() + patience.toNanos();
        String[] holder = new String[1];
        while (true) {
            Optional<RunLock> l = tryAcquire(stateDir, holder, what);
            if (l.isPresent()) {
                return l.get();
            }
            if (System.nanoTime() - until > 0) {
                throw new IOException("another nhc holds the run lock in " + stateDir + " (" + holder[0]
                        + "); is a daemon already running? Only one may write a node's state");
            }
            try {
                Thread.sleep(200); // a poll of a lock held by another process; nothing here can signal its release
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while waiting for the run lock");
            }
        }
    }

    static Optional<RunLock> tryAcquire(Path stateDir, String[] holder, boolean rootOnly, Path fallbackDir) throws IOException {
        return tryAcquire(stateDir, holder, rootOnly, fallbackDir, "");
    }

    static Optional<RunLock> tryAcquire(Path stateDir, String[] holder, boolean rootOnly, Path fallbackDir, String what) throws IOException {
        Path dir = StateDirectory.check(stateDir, rootOnly);
        Path file = dir.resolve(FILE);
        FileChannel ch;
        String note = null;
        try {
            ch = open(file, dir);
        } catch (UntrustedPathException e) {
            throw e;
        } catch (IOException e) {
            String why = "cannot create " + file + ": " + IoReason.of(e);
            Path other = rootOnly && fallbackDir != null ? fallbackDir.resolve("state" + file.getParent().toString().replace('/', '_') + ".lock") : null;
            try {
                if (other == null) {
                    throw new IOException("no other place for the lock when not running as root");
                }
                Path d = StateDirectory.check(fallbackDir, true);
                Files.createDirectories(d, PRIVATE_DIR);
                ch = open(other, d);
                note = "locked " + other + " instead: " + why;
            } catch (IOException fallback) {
                return Optional.of(new RunLock(null, null, "running without the run lock: " + why
                        + (other == null ? "" : "; nor " + other + ": " + IoReason.of(fallback))));
            }
        }
        FileLock l;
        try {
            l = ch.tryLock();
        } catch (OverlappingFileLockException e) {
            l = null;
        } catch (IOException e) {
            ch.close();
            throw e;
        }
        if (l == null) {
            ByteBuffer buf = ByteBuffer.allocate(256);
            ch.read(buf, 0);
            ch.close();
            holder[0] = describe(new String(buf.array(), 0, buf.position(), StandardCharsets.UTF_8).trim(), System.currentTimeMillis());
            return Optional.empty();
        }
        writeHolder(ch, what);
        return Optional.of(new RunLock(ch, l, note));
    }

    /** Opens an existing lock file (which needs no space) or creates it, never through a link. */
    private static FileChannel open(Path file, Path dir) throws IOException {
        try {
            FileStat st = FileStat.lstat(file);
            if (!st.isRegular()) {
                throw new UntrustedPathException(file + " is " + st.kind() + ", not a regular file; nhc does not lock through it");
            }
        } catch (NoSuchFileException missing) {
            StateDirectory.create(dir);
        }
        return FileChannel.open(file, Set.of(StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE,
                LinkOption.NOFOLLOW_LINKS), OWNER_ONLY);
    }

    /** "pid P started EPOCH_MS", when the disk has room for it: who holds the lock is a courtesy, not a condition. */
    private static void writeHolder(FileChannel ch, String what) {
        // Epoch milliseconds rather than an ISO time: formatting one costs a cold JVM ~4 ms of
        // java.time set-up on every run, and the run that reads it shows an age instead.
        byte[] text = ((what.isEmpty() ? "" : what + " ") + "pid " + CurrentProcess.pid() + " started " + System.currentTimeMillis())
                .getBytes(StandardCharsets.UTF_8);
        try {
            ch.write(ByteBuffer.wrap(text), 0);
            ch.truncate(text.length);
        } catch (IOException e) {
            // a full disk: the lock holds all the same
        }
    }

    /** What the report should say about the lock (taken elsewhere, or not at all), or null. */
    public String note() {
        return note;
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
        if (channel == null) {
            return;
        }
        try {
            lock.release();
        } finally {
            channel.close();
        }
    }
}
