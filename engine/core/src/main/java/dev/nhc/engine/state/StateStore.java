package dev.nhc.engine.state;

import dev.nhc.engine.config.ConfigException;
import dev.nhc.engine.config.Ownership;
import dev.nhc.engine.config.YamlReader;
import dev.nhc.engine.files.FileStat;
import dev.nhc.engine.files.IoReason;
import dev.nhc.engine.process.CurrentProcess;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The state kept between runs in {@code state_dir}: one JSON file per section ({@link StateFile}),
 * and beside it the generation before ({@code NAME.json.prev}).
 *
 * <p>Writes are atomic (temp file, fsync, rename, fsync of the directory) so a run killed by
 * slurmd never leaves a half-written file; the file it replaces becomes the previous generation,
 * and the very first write makes both, so that one damaged file never loses a latched fault. A
 * file that cannot be read (empty, corrupt, not a regular file) is passed over for the previous
 * generation, and moved aside with a warning when the section is next written. When no
 * generation can be read the section starts afresh but is marked lost ({@link
 * StateSection#LOST_KEY}, {@link StateSection#lostBecause()}), so that a check that latches
 * faults says it may have forgotten one instead of passing, until {@code nhc clear}.
 *
 * <p>Nothing in the directory is followed through a symbolic link, and as root the directory
 * must pass {@link StateDirectory}: a directory that does not is not read (every section is lost)
 * or written (every write fails, naming why). Sections that nhc 0.1.0 wrote as YAML are still
 * read, and replaced by JSON the first time they change.
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
    private final boolean rootOnly;
    /** Per-key locking: checks load their sections from their own threads at once, each file read once. */
    private final Map<String, StateSection> sections = new ConcurrentHashMap<>();
    private final List<String> warnings = new ArrayList<>();
    private final List<IOException> failures = new ArrayList<>();
    /** Guards the directory check only: writers hold their section's lock while they ask, so this must be a lock no caller can hold. */
    private final Object directoryCheck = new Object();
    private Path checkedDir;
    private IOException unusable;

    public StateStore(Path dir) {
        this(dir, Ownership.runningAsRoot());
    }

    /** {@code rootOnly}: apply the {@link StateDirectory} rules (nhc runs as root). */
    public StateStore(Path dir, boolean rootOnly) {
        this.dir = dir;
        this.rootOnly = rootOnly;
    }

    public Path dir() {
        return dir;
    }

    /** Problems met while loading (unreadable files, lost sections); the reports show them. */
    public List<String> warnings() {
        synchronized (warnings) {
            return List.copyOf(warnings);
        }
    }

    /** The directory's real path once it passed {@link StateDirectory#check}; the same answer (or exception) every time. */
    public Path checkDirectory() throws IOException {
        synchronized (directoryCheck) {
            if (checkedDir == null && unusable == null) {
                try {
                    checkedDir = StateDirectory.check(dir, rootOnly);
                } catch (IOException e) {
                    unusable = e;
                }
            }
            if (unusable != null) {
                throw unusable;
            }
            return checkedDir;
        }
    }

    public StateSection section(String name) {
        return sections.computeIfAbsent(name, this::load);
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

    /** The section's files in the order they are tried: the current generation, the previous one, nhc 0.1.0's YAML. */
    private static List<Path> generations(Path dir, String name) {
        String base = safe(name);
        return List.of(dir.resolve(base + ".json"), dir.resolve(base + ".json.prev"), dir.resolve(base + ".yaml"));
    }

    private StateSection load(String name) {
        Path d;
        try {
            d = checkDirectory();
        } catch (IOException e) {
            return lost(name, "state directory " + dir + " is not used: " + IoReason.of(e), List.of());
        }
        List<Path> files = generations(d, name);
        List<Path> unreadable = new ArrayList<>();
        List<String> why = new ArrayList<>();
        for (int i = 0; i < files.size(); i++) {
            Path f = files.get(i);
            Map<String, Object> data;
            try {
                data = read(f, i == 2);
            } catch (IOException e) {
                unreadable.add(f);
                why.add(f.getFileName() + " (" + IoReason.of(e) + ")");
                continue;
            }
            if (data == null) {
                continue;
            }
            StateSection s = new StateSection(name, data);
            if (!unreadable.isEmpty()) {
                warn("state file " + String.join(" and ", why) + " could not be read; using " + f
                        + " (the generation before) and moving the unreadable one aside when the state is next saved");
                s.damaged(unreadable);
            }
            return s;
        }
        return unreadable.isEmpty() ? new StateSection(name, Map.of()) : lost(name, "could not read " + String.join(" or ", why), unreadable);
    }

    /** A fresh section that says what was lost, and keeps saying it (the mark is saved) until it is cleared. */
    private StateSection lost(String name, String why, List<Path> damaged) {
        warn("state of " + name + " is lost: " + why + "; starting afresh (a fault latched before may be forgotten)");
        Map<String, Object> data = new LinkedHashMap<>();
        data.put(StateSection.LOST_KEY, why);
        StateSection s = new StateSection(name, data);
        s.damaged(damaged);
        s.markDirty();
        return s;
    }

    private void warn(String msg) {
        log().warn(msg);
        synchronized (warnings) {
            warnings.add(msg);
        }
    }

    /** The data in {@code f}; null when there is no such file; an exception when it is there but not a readable state file. */
    private static Map<String, Object> read(Path f, boolean yaml) throws IOException {
        FileStat st;
        try {
            st = FileStat.lstat(f);
        } catch (NoSuchFileException e) {
            return null;
        }
        if (!st.isRegular()) {
            throw new IOException("is " + st.kind() + ", not a regular file");
        }
        if (st.size() > MAX_BYTES) {
            throw new IOException("larger than " + MAX_BYTES + " bytes");
        }
        String text;
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            ByteBuffer buf = ByteBuffer.allocate((int) st.size() + 1);
            while (buf.hasRemaining() && ch.read(buf) > 0) {
                // a file that grew since lstat is read up to its old size: it is not one nhc wrote
            }
            text = new String(buf.array(), 0, buf.position(), StandardCharsets.UTF_8);
        }
        if (text.isBlank()) {
            throw new IOException("is empty");
        }
        if (!yaml) {
            return StateFile.parse(text);
        }
        try {
            Object o = YamlReader.read(f.toString(), text, MAX_BYTES).toPlain();
            if (!(o instanceof Map<?, ?> m)) {
                throw new IOException("not a map");
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> data = (Map<String, Object>) m;
            return data;
        } catch (ConfigException e) {
            throw new IOException(e.problems().get(0).toString(), e);
        }
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
     * Writes these sections if changed, and no other: the daemon saves its own and a finished
     * check's while other checks' probes are still changing theirs (a cursor moved, its latch not
     * yet set), which must not be saved half-done. Throws as {@link #flush()} does, also for a
     * failure kept by an earlier {@link #flush(String)}.
     */
    public void flush(java.util.Collection<String> names) throws IOException {
        IOException first = null;
        for (String name : names) {
            StateSection s = sections.get(name);
            if (s == null) {
                continue;
            }
            try {
                write(s);
            } catch (IOException e) {
                first = first == null ? e : first;
            }
        }
        synchronized (failures) {
            if (first == null && !failures.isEmpty()) {
                first = failures.get(0);
            }
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

    /**
     * Removes a section's files (every generation) while keeping it in memory, for a record that is
     * now wrong on disk and could not be rewritten (a full disk: unlinking needs no space). The next
     * process then finds no record at all, which a reader can tell from an out-of-date one.
     */
    public void forget(String name) throws IOException {
        Path d = checkDirectory();
        for (Path f : generations(d, name)) {
            Files.deleteIfExists(f);
        }
        StateSection s = sections.get(name);
        if (s != null) {
            s.markDirty();
        }
    }

    /** Snapshot, write and mark clean as one step, so that a change made meanwhile is never marked written. */
    private void write(StateSection s) throws IOException {
        synchronized (s) {
            if (!s.dirty()) {
                return;
            }
            Path d;
            try {
                d = checkDirectory();
            } catch (IOException e) {
                throw new IOException("state directory " + dir + " is not used: " + IoReason.of(e), e);
            }
            List<Path> files = generations(d, s.name());
            Path current = files.get(0);
            try {
                StateDirectory.create(d);
                for (Path bad : s.damaged()) {
                    moveAside(bad);
                }
                s.damaged(List.of());
                writeGeneration(current, files.get(1), StateFile.render(s.snapshot()));
                Files.deleteIfExists(files.get(2));
            } catch (IOException e) {
                throw new IOException("cannot write " + current + ": " + IoReason.of(e), e);
            }
            s.clean();
        }
    }

    /**
     * Replaces {@code current} so that readers see the old or the new content, never a part; the
     * old becomes {@code previous}. With no current file yet, {@code previous} gets a copy of the
     * new one (once, for the first generation) so that there are always two.
     */
    private static void writeGeneration(Path current, Path previous, String text) throws IOException {
        Path dir = current.getParent();
        Path tmp = writeTemp(dir, current, text);
        try {
            if (Files.exists(current, LinkOption.NOFOLLOW_LINKS)) {
                rename(current, previous);
            } else if (!Files.exists(previous, LinkOption.NOFOLLOW_LINKS)) {
                Path copy = writeTemp(dir, previous, text);
                try {
                    rename(copy, previous);
                } finally {
                    Files.deleteIfExists(copy);
                }
            }
            rename(tmp, current);
        } finally {
            Files.deleteIfExists(tmp);
        }
        fsyncDirectory(dir);
    }

    /** A new file beside {@code target} holding {@code text}, on disk. */
    private static Path writeTemp(Path dir, Path target, String text) throws IOException {
        // Named by hand rather than by Files.createTempFile, whose random names need SecureRandom
        // (~10 ms of a cold run to seed); CREATE_NEW (O_EXCL) never opens what someone else made,
        // a link included.
        Path tmp = dir.resolve("." + target.getFileName() + "." + CurrentProcess.pid() + "." + System.nanoTime() + ".tmp");
        try (FileChannel ch = FileChannel.open(tmp, Set.of(StandardOpenOption.WRITE, StandardOpenOption.CREATE_NEW), OWNER_ONLY)) {
            ByteBuffer buf = ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
            while (buf.hasRemaining()) {
                ch.write(buf);
            }
            ch.force(true);
        } catch (IOException e) {
            Files.deleteIfExists(tmp);
            throw e;
        }
        return tmp;
    }

    /** rename(2): replaces a link at {@code to} rather than following it. */
    private static void rename(Path from, Path to) throws IOException {
        try {
            Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(from, to, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    private void moveAside(Path bad) {
        Path aside = bad.resolveSibling(bad.getFileName() + ".corrupt-" + System.currentTimeMillis());
        try {
            rename(bad, aside);
            warn("moved the unreadable state file " + bad + " aside to " + aside);
        } catch (NoSuchFileException gone) {
            // already gone
        } catch (IOException e) {
            warn("could not move the unreadable state file " + bad + " aside: " + IoReason.of(e));
        }
    }

    private static void fsyncDirectory(Path dir) {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException ignored) {
            // Some filesystems cannot open a directory for fsync; the rename itself is still atomic.
        }
    }

}
