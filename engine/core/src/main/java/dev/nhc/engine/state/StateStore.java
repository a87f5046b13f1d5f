package dev.nhc.engine.state;

import dev.nhc.engine.config.ConfigException;
import dev.nhc.engine.config.YamlReader;
import dev.nhc.engine.process.CurrentProcess;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The state kept between runs in {@code state_dir}: one JSON file per section ({@link StateFile}).
 * Writes are atomic (temp file, fsync, rename, fsync of the directory) so a run killed by slurmd
 * never leaves a half-written file; a file that cannot be read is moved aside with a warning and
 * the section starts empty. Sections that nhc 0.1.0 wrote as YAML are still read, and replaced by
 * JSON the first time they change.
 */
public final class StateStore {
    /** Looked up when something is logged, not at class load: initialising logging costs a one-shot run ~50-100 ms it rarely needs. */
    private static Logger log() {
        return LoggerFactory.getLogger(StateStore.class);
    }

    /** State files hold counters and cursors, a few KB; far beyond this one is not nhc's. */
    static final int MAX_BYTES = 16 * 1024 * 1024;

    /** State is nhc's own business (drain reasons, counters): readable by its owner only. */
    private static final FileAttribute<?> OWNER_ONLY = PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));

    private final Path dir;
    /** Per-key locking: checks load their sections from their own threads at once, each file read once. */
    private final Map<String, StateSection> sections = new ConcurrentHashMap<>();
    private final List<String> warnings = new ArrayList<>();
    private final List<IOException> failures = new ArrayList<>();

    public StateStore(Path dir) {
        this.dir = dir;
    }

    public Path dir() {
        return dir;
    }

    /** Problems met while loading (corrupt files moved aside); the reports show them. */
    public List<String> warnings() {
        synchronized (warnings) {
            return List.copyOf(warnings);
        }
    }

    public StateSection section(String name) {
        return sections.computeIfAbsent(name, n -> new StateSection(n, load(n)));
    }

    private Path fileOf(String name) {
        return dir.resolve(safe(name) + ".json");
    }

    /** Where nhc up to 0.1.0 kept the section, as YAML: read when there is no JSON file yet, removed once that is written. */
    private Path legacyFileOf(String name) {
        return dir.resolve(safe(name) + ".yaml");
    }

    private static String safe(String name) {
        StringBuilder safe = new StringBuilder(name.length());
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean plain = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-';
            safe.append(plain ? c : '_');
        }
        return safe.toString();
    }

    private Map<String, Object> load(String name) {
        Path f = fileOf(name);
        boolean legacy = false;
        if (!Files.exists(f)) {
            f = legacyFileOf(name);
            legacy = true;
            if (!Files.exists(f)) {
                return Map.of();
            }
        }
        try {
            if (Files.size(f) > MAX_BYTES) {
                throw new IOException("larger than " + MAX_BYTES + " bytes");
            }
            String text = Files.readString(f, StandardCharsets.UTF_8);
            if (text.isBlank()) {
                return Map.of();
            }
            if (!legacy) {
                return StateFile.parse(text);
            }
            Object o = YamlReader.read(f.toString(), text, MAX_BYTES).toPlain();
            if (!(o instanceof Map<?, ?> m)) {
                throw new IOException("not a map");
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> data = (Map<String, Object>) m;
            return data;
        } catch (ConfigException e) {
            return corrupt(f, new IOException(e.problems().get(0).toString(), e));
        } catch (Exception e) {
            return corrupt(f, e);
        }
    }

    private Map<String, Object> corrupt(Path f, Exception e) {
        Path aside = f.resolveSibling(f.getFileName() + ".corrupt-" + System.currentTimeMillis());
        String msg;
        try {
            Files.move(f, aside, StandardCopyOption.REPLACE_EXISTING);
            msg = "state file " + f + " was unreadable (" + oneLine(e) + "); moved aside to " + aside + " and started afresh";
        } catch (IOException moveFailed) {
            msg = "state file " + f + " was unreadable (" + oneLine(e) + ") and could not be moved aside: " + oneLine(moveFailed);
        }
        log().warn(msg);
        synchronized (warnings) {
            warnings.add(msg);
        }
        return Map.of();
    }

    /**
     * Writes every changed section. Throws with a message naming the file when the disk refuses,
     * now or in an earlier {@link #flush(String)}.
     */
    public void flush() throws IOException {
        for (StateSection s : sections.values()) {
            write(s);
        }
        IOException first;
        synchronized (failures) {
            first = failures.isEmpty() ? null : failures.get(0);
            failures.clear();
        }
        if (first != null) {
            throw first;
        }
    }

    /**
     * Writes one section now if it was read and has changed: the runner saves a check's own state
     * from the check's thread as soon as it is done, so that checks write in parallel rather than
     * one after another at the end of the run. A failure is kept for {@link #flush()} to report.
     */
    public void flush(String name) {
        StateSection s = sections.get(name);
        if (s == null) {
            return;
        }
        try {
            write(s);
        } catch (IOException e) {
            synchronized (failures) {
                failures.add(e);
            }
        }
    }

    /** Snapshot, write and mark clean as one step, so that a change made meanwhile is never marked written. */
    private void write(StateSection s) throws IOException {
        synchronized (s) {
            if (s.dirty()) {
                writeAtomically(fileOf(s.name()), StateFile.render(s.snapshot()));
                Files.deleteIfExists(legacyFileOf(s.name()));
                s.clean();
            }
        }
    }

    /** Writes text to a file so that readers see either the old or the new content, never a part. */
    public static void writeAtomically(Path target, String text) throws IOException {
        Path parent = target.toAbsolutePath().getParent();
        Files.createDirectories(parent);
        // Named by hand rather than by Files.createTempFile, whose random names need SecureRandom
        // (~10 ms of a cold run to seed); CREATE_NEW still never reuses a file someone else made.
        Path tmp = parent.resolve("." + target.getFileName() + "." + CurrentProcess.pid() + "." + System.nanoTime() + ".tmp");
        try {
            try (FileChannel ch = FileChannel.open(tmp, Set.of(StandardOpenOption.WRITE, StandardOpenOption.CREATE_NEW), OWNER_ONLY)) {
                java.nio.ByteBuffer buf = java.nio.ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
                while (buf.hasRemaining()) {
                    ch.write(buf);
                }
                ch.force(true);
            }
            try {
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
            }
            fsyncDirectory(parent);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    private static void fsyncDirectory(Path dir) {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException ignored) {
            // Some filesystems cannot open a directory for fsync; the rename itself is still atomic.
        }
    }

    private static String oneLine(Exception e) {
        String m = e.getMessage();
        return (m == null ? e.getClass().getSimpleName() : m).replace('\n', ' ');
    }
}
