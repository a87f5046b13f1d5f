package dev.nhc.engine.state;

import dev.nhc.engine.config.Ownership;
import dev.nhc.engine.files.IoReason;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The state kept between runs in {@code state_dir}: one JSON file per section ({@link StateFile}),
 * numbered by generation ({@link Generation}), with a second copy beside it ({@code
 * NAME.json.prev}), and the highest generation written of each section in a journal apart from
 * them ({@link StateJournal}).
 *
 * <p>Writes ({@link GenerationWriter}) are atomic and leave the newest generation whole in at least
 * one file at every step, so a run killed by slurmd never leaves a half-written section, and one
 * damaged file never loses a latched fault. A section is read from the newest generation any of its
 * files holds, a temp file a killed write left included. It is <em>lost</em> — it starts afresh,
 * marked ({@link StateSection#LOST_KEY}, {@link StateSection#lostBecause()}) until {@code nhc clear},
 * so that a check that latches faults says it may have forgotten one instead of passing, and reads
 * its source again from the start of the boot — when no generation can be read, when the newest
 * that can is older than the journal says was written, or when it is missing while the journal
 * names it, or while nhc holds the node ({@link #nodeHeld}) and the journal cannot tell. An
 * unreadable file is moved aside with a warning when the section is next written, and leftover
 * temp files are removed then.
 *
 * <p>Nothing in the directory is followed through a symbolic link, and as root the directory
 * must pass {@link StateDirectory}: a directory that does not is not read (every section is lost)
 * or written (every write fails, naming why). Sections that nhc 0.1.0 wrote as YAML are still
 * read, and replaced by JSON the first time they change.
 */
public final class StateStore implements AutoCloseable {
    /** Looked up when something is logged, not at class load: initialising logging costs a one-shot run ~50-100 ms it rarely needs. */
    private static Logger log() {
        return LoggerFactory.getLogger(StateStore.class);
    }

    /**
     * Checks keep what their probes remember (cursors, latched faults) in sections named this and
     * the check's name; only these are lost when missing while nhc holds the node and the journal
     * cannot tell: the engine's own sections (for: streaks, schedules) were never written for most
     * checks, and a node held while nhc is upgraded to one that keeps a journal would call each lost.
     */
    public static final String CHECK_PREFIX = "check.";

    private final Path dir;
    private final boolean rootOnly;
    /** Per-key locking: checks load their sections from their own threads at once, each file read once. */
    private final Map<String, StateSection> sections = new ConcurrentHashMap<>();
    private final List<String> warnings = new ArrayList<>();
    private final List<IOException> failures = new ArrayList<>();
    /** Guards the directory check, the journal and the scan for temp files: writers hold their section's lock while they ask, so this must be a lock no caller can hold. */
    private final Object directoryCheck = new Object();
    private Path checkedDir;
    private IOException unusable;
    private StateJournal journal;
    private OrphanedTemps orphans;
    private volatile String held;
    /** A test's crash: writes (of {@link #stopSection} only, when set) stop before this step; null for every real store. */
    private final GenerationWriter.Step stopBefore;
    private final String stopSection;
    /** Set when a test stopped a write: a killed process writes nothing more. */
    private volatile boolean stopped;
    /** Closed with the store: no write after it. */
    private final WriteSeal seal = new WriteSeal();

    public StateStore(Path dir) {
        this(dir, Ownership.runningAsRoot());
    }

    /** {@code rootOnly}: apply the {@link StateDirectory} rules (nhc runs as root). */
    public StateStore(Path dir, boolean rootOnly) {
        this(dir, rootOnly, null, null);
    }

    /** {@code stopBefore}: a test's crash, the writes of {@code section} (null: any) stopping before that step. */
    StateStore(Path dir, boolean rootOnly, GenerationWriter.Step stopBefore, String section) {
        this.dir = dir;
        this.rootOnly = rootOnly;
        this.stopBefore = stopBefore;
        this.stopSection = section;
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

    /**
     * Says that nhc holds the node out of service ({@code why}: its Slurm record, its last verdict),
     * before any check's section is read: a section missing then is lost, not new, when the journal
     * cannot tell, and checks that lost latches keep the node out ({@link StateSection#heldBecause()}).
     */
    public void nodeHeld(String why) {
        this.held = why;
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

    /** Whether a test stopped one of its writes ({@link #stopBefore}). */
    boolean stopped() {
        return stopped;
    }

    /** The journal and the leftover temp files of the checked directory, read once. */
    private StateJournal journal(Path d) {
        synchronized (directoryCheck) {
            if (journal == null) {
                journal = StateJournal.read(d);
                orphans = OrphanedTemps.scan(d);
                if (journal.damaged()) {
                    warn(journal.silence() + "; it is written afresh from the sections read, and until then a section whose files"
                            + " are missing or older than what was written cannot be told from a new one");
                }
            }
            return journal;
        }
    }

    private OrphanedTemps orphans(Path d) {
        journal(d);
        return orphans;
    }

    public StateSection section(String name) {
        return sections.computeIfAbsent(name, this::load);
    }

    private StateSection load(String name) {
        Path d;
        try {
            d = checkDirectory();
        } catch (IOException e) {
            return lost(name, -1, "state directory " + dir + " is not used: " + IoReason.of(e), List.of());
        }
        String base = SectionFiles.base(name);
        StateJournal j = journal(d);
        SectionFiles.Found found = SectionFiles.read(d, base, orphans(d).of(base));
        long known = j.written(base);
        Generation newest = found.newest();
        if (newest != null) {
            j.saw(base, newest.number());
        }
        if (newest != null && newest.number() < known) {
            return lost(name, known, "the newest generation that could be read (" + newest.number() + ", in " + newest.file().getFileName()
                    + ") is older than generation " + known + ", which " + StateJournal.FILE + " says was written"
                    + (found.unreadable().isEmpty() ? "" : "; could not read " + String.join(" or ", found.why())), found.unreadable());
        }
        if (newest != null) {
            StateSection s = new StateSection(name, newest.data(), newest.number(), this::heldNow);
            if (found.recovered()) {
                warn("recovered state file " + newest.file() + " (generation " + newest.number() + "), which a write killed before it"
                        + " finished left behind; it is saved in its place when the state is next saved");
                s.markDirty();
            } else if (!orphans(d).of(base).isEmpty()) {
                s.markDirty(); // written again soon, and the leftover temp files with it removed
            }
            if (!found.unreadable().isEmpty()) {
                warn("state file " + String.join(" and ", found.why()) + " could not be read; using " + newest.file()
                        + " (generation " + newest.number() + ", the newest) and moving the unreadable one aside when the state is next saved");
                s.damaged(found.unreadable());
            }
            return s;
        }
        if (!found.unreadable().isEmpty()) {
            return lost(name, known, "could not read " + String.join(" or ", found.why()), found.unreadable());
        }
        if (known >= 0) {
            return lost(name, known, "its files are missing, but " + StateJournal.FILE + " says generation " + known + " was written",
                    List.of());
        }
        String holding = held;
        if (!j.knows() && holding != null && name.startsWith(CHECK_PREFIX)) {
            return lost(name, known, "its files are missing while " + holding + ", and " + j.silence()
                    + " to tell whether it ever had any", List.of());
        }
        return new StateSection(name, Map.of(), -1, this::heldNow);
    }

    private String heldNow() {
        return held;
    }

    /** A fresh section that says what was lost, and keeps saying it (the mark is saved) until it is cleared. */
    private StateSection lost(String name, long known, String why, List<Path> damaged) {
        warn("state of " + name + " is lost: " + why + "; starting afresh (a fault latched before may be forgotten:"
                + " checks that latch read their source again from the start of this boot)");
        Map<String, Object> data = new LinkedHashMap<>();
        data.put(StateSection.LOST_KEY, why);
        StateSection s = new StateSection(name, data, known, this::heldNow);
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

    /**
     * Writes every changed section. Throws with a message naming the file when the disk refuses,
     * now or in an earlier {@link #flush(String)}.
     */
    public void flush() throws IOException {
        for (StateSection s : sections.values()) {
            write(s);
        }
        saveJournal();
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
     * process then finds no record at all, which a reader can tell from an out-of-date one (the
     * journal is told first; should that fail too, the next process finds the section lost, which
     * such a reader takes as no record).
     */
    public void forget(String name) throws IOException {
        seal.write(() -> forgetOpen(name));
    }

    private void forgetOpen(String name) throws IOException {
        Path d = checkDirectory();
        String base = SectionFiles.base(name);
        try {
            journal(d).forget(base);
        } catch (IOException e) {
            // the next process finds the section lost rather than absent: as unknown to it
        }
        for (Path f : List.of(SectionFiles.current(d, base), SectionFiles.copy(d, base), SectionFiles.legacy(d, base))) {
            Files.deleteIfExists(f);
        }
        StateSection s = sections.get(name);
        if (s != null) {
            s.markDirty();
        }
    }

    /**
     * Ends this store's writes, waiting for one going now: the owner is about to give up the run
     * lock, after which another nhc may hold it, so a probe abandoned at its limit that returns later
     * must not write (it would overwrite that one's state, or a directory being deleted). What is
     * changed afterwards stays in memory.
     */
    @Override
    public void close() {
        seal.close();
    }

    /** The generations read but not yet in the journal (a journal begun or rebuilt this run). */
    private void saveJournal() {
        StateJournal j;
        synchronized (directoryCheck) {
            j = journal;
        }
        if (j == null || stopped) {
            return;
        }
        try {
            seal.write(() -> {
                j.save();
                orphans.removeJournals();
            });
        } catch (IOException e) {
            log().debug("cannot write {}: {}", StateJournal.FILE, IoReason.of(e));
        }
    }

    /** Snapshot, write and mark clean as one step, so that a change made meanwhile is never marked written. */
    private void write(StateSection s) throws IOException {
        seal.write(() -> writeOpen(s));
    }

    private void writeOpen(StateSection s) throws IOException {
        synchronized (s) {
            if (!s.dirty() || stopped) {
                return;
            }
            Path d;
            try {
                d = checkDirectory();
            } catch (IOException e) {
                throw new IOException("state directory " + dir + " is not used: " + IoReason.of(e), e);
            }
            String base = SectionFiles.base(s.name());
            Path current = SectionFiles.current(d, base);
            long generation = s.nextGeneration();
            StateJournal j = journal(d);
            try {
                StateDirectory.create(d);
                for (Path bad : s.damaged()) {
                    String moved = SectionFiles.moveAside(bad);
                    if (moved != null) {
                        warn(moved);
                    }
                }
                s.damaged(List.of());
                String text = StateFile.render(Generation.numbered(generation, s.snapshot()));
                GenerationWriter.Step stop = stopSection == null || stopSection.equals(s.name()) ? stopBefore : null;
                GenerationWriter.write(current, SectionFiles.copy(d, base), text, () -> j.wrote(base, generation), stop);
                Files.deleteIfExists(SectionFiles.legacy(d, base));
                orphans(d).remove(base);
            } catch (GenerationWriter.Stopped crash) {
                stopped = true;
                throw crash;
            } catch (IOException e) {
                throw new IOException("cannot write " + current + ": " + IoReason.of(e), e);
            }
            s.written(generation);
            s.clean();
        }
    }
}
