package dev.nhc.engine.state;

import dev.nhc.engine.files.IoReason;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * The highest generation written of each section ({@value #FILE} in the state directory, one JSON
 * object of file name to number), kept apart from the sections' own files so that damage to those
 * cannot also erase the record that they held more: a section whose newest generation was
 * truncated, deleted or lost with a crash reads as older than, or missing against, what the journal
 * says was written, and is lost rather than silently older.
 *
 * <p>A generation is recorded only after its file was renamed into place and the directory synced,
 * so the journal never names a generation no file held. It is itself written by rename but not
 * synced: after a power cut it may be older than the sections (which only costs what it could have
 * told) or unreadable; then it {@linkplain #knows() knows nothing}, and is written afresh from the
 * sections read. Every value read back is checked; a journal that does not hold up is not used.
 */
final class StateJournal {
    static final String FILE = "generations.journal";
    private static final int MAX_BYTES = 1024 * 1024;
    private static final int MAX_ENTRIES = 10_000;
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,255}");
    private static final FileAttribute<?> OWNER_ONLY = PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));

    private final Path file;
    private final Map<String, Long> written = new TreeMap<>();
    /** Why it tells nothing (missing, unreadable), or null when it was read. */
    private final String silent;
    /** It was there but could not be used: said in the report, unlike a journal not written yet. */
    private final boolean damaged;
    private boolean dirty;

    private StateJournal(Path file, String silent, boolean damaged) {
        this.file = file;
        this.silent = silent;
        this.damaged = damaged;
        this.dirty = damaged; // written afresh, from what the sections hold
    }

    /** The journal of the state directory {@code dir}: what it says, or why it says nothing. */
    static StateJournal read(Path dir) {
        Path f = dir.resolve(FILE);
        Generation g;
        try {
            g = SectionFiles.read(f, false);
        } catch (IOException e) {
            return new StateJournal(f, f + " could not be read (" + IoReason.of(e) + ")", true);
        }
        if (g == null) {
            return new StateJournal(f, "there is no " + f, false);
        }
        if (g.data().size() > MAX_ENTRIES) {
            return new StateJournal(f, f + " has more than " + MAX_ENTRIES + " entries", true);
        }
        StateJournal j = new StateJournal(f, null, false);
        for (Map.Entry<String, Object> e : g.data().entrySet()) {
            if (!NAME.matcher(e.getKey()).matches() || !(e.getValue() instanceof Long n && n >= 0)) {
                return new StateJournal(f, f + " holds '" + clip(e.getKey()) + "': '" + clip(String.valueOf(e.getValue()))
                        + "', not what nhc writes", true);
            }
            j.written.put(e.getKey(), (Long) e.getValue());
        }
        return j;
    }

    /** Whether it was read: a section it does not name was never written (since the journal began). */
    boolean knows() {
        return silent == null;
    }

    /** Why it knows nothing, or null. */
    String silence() {
        return silent;
    }

    /** It was there but could not be used. */
    boolean damaged() {
        return damaged;
    }

    private static String clip(String s) {
        return s.length() <= 80 ? s : s.substring(0, 80) + "…";
    }

    /** The highest generation of {@code base} known written, or -1. */
    synchronized long written(String base) {
        return written.getOrDefault(base, -1L);
    }

    /** A generation read back: recorded when the journal did not know it yet (nhc before journals, a journal rebuilt). */
    synchronized void saw(String base, long generation) {
        if (generation > written(base)) {
            written.put(base, generation);
            dirty = true;
        }
    }

    /** Records a generation whose file is in place, and writes the journal now. */
    synchronized void wrote(String base, long generation) throws IOException {
        saw(base, generation);
        save();
    }

    /** The section's files were removed on purpose: no generation of it is expected any more. */
    synchronized void forget(String base) throws IOException {
        if (written.remove(base) != null) {
            dirty = true;
            save();
        }
    }

    /** Writes what changed since it was last written; a failure leaves it to the next write. */
    synchronized void save() throws IOException {
        if (!dirty) {
            return;
        }
        Map<String, Object> out = new LinkedHashMap<>(written);
        Path tmp = OrphanedTemps.name(file);
        try {
            try (FileChannel ch = FileChannel.open(tmp, Set.of(StandardOpenOption.WRITE, StandardOpenOption.CREATE_NEW), OWNER_ONLY)) {
                ByteBuffer buf = ByteBuffer.wrap(StateFile.render(out).getBytes(StandardCharsets.UTF_8));
                while (buf.hasRemaining()) {
                    ch.write(buf);
                }
            }
            try {
                Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            }
            dirty = false;
        } finally {
            Files.deleteIfExists(tmp);
        }
    }
}
