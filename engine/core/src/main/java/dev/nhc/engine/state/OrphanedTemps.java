package dev.nhc.engine.state;

import dev.nhc.engine.files.CurrentProcess;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The temp files that writes killed before they finished left in the state directory, found once
 * per run, by the file they were to become. Only a process that holds the node's run lock writes
 * there, so at load time every temp file is an orphan: one that is whole and newer than what the
 * section's files hold is recovered ({@link SectionFiles#read}), and all are removed when the
 * section is next written.
 */
final class OrphanedTemps {
    /** {@code .NAME.json.PID.NANOS.tmp} and {@code .NAME.json.prev.PID.NANOS.tmp}, as {@link #name} makes them; group 1 is NAME. */
    private static final Pattern SECTION = Pattern.compile("\\.(.+)\\.json(?:\\.prev)?\\.\\d{1,19}\\.-?\\d{1,19}\\.tmp");
    private static final Pattern JOURNAL = Pattern.compile("\\." + Pattern.quote(StateJournal.FILE) + "\\.\\d{1,19}\\.-?\\d{1,19}\\.tmp");
    /** More than this many is not what crashed writes leave: the rest waits for a later run. */
    private static final int MAX = 10_000;

    private final Map<String, List<Path>> bySection = new HashMap<>();
    private final List<Path> journal = new ArrayList<>();

    private OrphanedTemps() {
    }

    static OrphanedTemps scan(Path dir) {
        OrphanedTemps o = new OrphanedTemps();
        int n = 0;
        // a filter, not a glob: a glob is compiled to a regex on every run's path
        DirectoryStream.Filter<Path> temp = p -> p.getFileName().toString().startsWith(".") && p.getFileName().toString().endsWith(".tmp");
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, temp)) {
            for (Path f : files) {
                if (++n > MAX) {
                    break;
                }
                String name = f.getFileName().toString();
                Matcher m = SECTION.matcher(name);
                if (m.matches()) {
                    o.bySection.computeIfAbsent(m.group(1), k -> new ArrayList<>()).add(f);
                } else if (JOURNAL.matcher(name).matches()) {
                    o.journal.add(f);
                }
            }
        } catch (NoSuchFileException none) {
            // no directory yet: nothing was ever written
        } catch (IOException e) {
            // unlistable: nothing to recover from, and the section's own files are read as always
        }
        return o;
    }

    /** The orphans of the section kept in {@code base}.json. */
    synchronized List<Path> of(String base) {
        return List.copyOf(bySection.getOrDefault(base, List.of()));
    }

    /** Removes the section's orphans: it was just written whole. */
    synchronized void remove(String base) {
        List<Path> gone = bySection.remove(base);
        if (gone != null) {
            gone.forEach(OrphanedTemps::delete);
        }
    }

    synchronized void removeJournals() {
        journal.forEach(OrphanedTemps::delete);
        journal.clear();
    }

    private static void delete(Path f) {
        try {
            Files.deleteIfExists(f);
        } catch (IOException e) {
            // left for a later run; a temp file is never read as the section's file
        }
    }

    /**
     * A new temp file's name beside {@code target}: named by hand rather than by
     * Files.createTempFile, whose random names need SecureRandom (~10 ms of a cold run to seed).
     */
    static Path name(Path target) {
        return target.resolveSibling("." + target.getFileName() + "." + CurrentProcess.pid() + "." + System.nanoTime() + ".tmp");
    }
}
