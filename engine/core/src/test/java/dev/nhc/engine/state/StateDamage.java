package dev.nhc.engine.state;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * What tests do to a state directory to see that a latch survives: stop a write at one of its
 * steps as a killed process would, truncate a file, and put the directory back as it was.
 */
public final class StateDamage {
    private StateDamage() {
    }

    /** How many steps a write has; {@link #stoppingAt} takes 0 to this (this many: a whole write). */
    public static int steps() {
        return GenerationWriter.Step.values().length;
    }

    /** The name of step {@code k} (for messages), "the end" past the last. */
    public static String step(int k) {
        return k < steps() ? GenerationWriter.Step.values()[k].name() : "the end";
    }

    /** The number of the step called {@code name} (WRITE_TEMP, SYNC_TEMP, RENAME_TO_CURRENT, SYNC_DIRECTORY, RECORD_IN_JOURNAL, WRITE_COPY, RENAME_COPY). */
    public static int stepIndex(String name) {
        return GenerationWriter.Step.valueOf(name).ordinal();
    }

    /** A store whose writes stop before step {@code k} ({@link #steps()}: none stop), the directory left as that step found it. */
    public static StateStore stoppingAt(Path dir, int k) {
        return stoppingAt(dir, k, null);
    }

    /** A store whose writes of {@code section} (null: of any) stop before step {@code k}, as {@link #stoppingAt(Path, int)}. */
    public static StateStore stoppingAt(Path dir, int k, String section) {
        return new StateStore(dir, false, k < steps() ? GenerationWriter.Step.values()[k] : null, section);
    }

    /** Writes the store's sections; a write stopped by {@link #stoppingAt} ends it as a kill would, and is not an error here. */
    public static void flushUntilStopped(StateStore store) throws IOException {
        try {
            store.flush();
        } catch (GenerationWriter.Stopped killed) {
            // the process is dead: what it left is what the next run finds
        }
    }

    /** Whether one of the store's writes was stopped: the "process" died there, and wrote nothing after. */
    public static boolean stopped(StateStore store) {
        return store.stopped();
    }

    public static void truncate(Path f, long size) throws IOException {
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.WRITE)) {
            ch.truncate(size);
        }
    }

    /** The files of section {@code base}: its file, its copy, and temp files a stopped write left. */
    public static List<Path> filesOf(Path dir, String base) throws IOException {
        List<Path> out = new ArrayList<>();
        for (Path p : List.of(dir.resolve(base + ".json"), dir.resolve(base + ".json.prev"))) {
            if (Files.exists(p)) {
                out.add(p);
            }
        }
        try (Stream<Path> files = Files.list(dir)) {
            files.filter(p -> p.getFileName().toString().startsWith("." + base + ".json.") && p.getFileName().toString().endsWith(".tmp"))
                    .sorted().forEach(out::add);
        }
        return out;
    }

    /** Every file in {@code dir} with its bytes. */
    public static Map<String, byte[]> snapshot(Path dir) throws IOException {
        Map<String, byte[]> out = new TreeMap<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path p : files.toList()) {
                if (Files.isRegularFile(p)) {
                    out.put(p.getFileName().toString(), Files.readAllBytes(p));
                }
            }
        }
        return out;
    }

    /** Makes {@code dir} hold exactly the files of {@code snapshot} again. */
    public static void restore(Path dir, Map<String, byte[]> snapshot) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            for (Path p : files.toList()) {
                if (Files.isRegularFile(p) && !snapshot.containsKey(p.getFileName().toString())) {
                    Files.delete(p);
                }
            }
        }
        for (Map.Entry<String, byte[]> e : snapshot.entrySet()) {
            Files.write(dir.resolve(e.getKey()), e.getValue());
        }
    }
}
