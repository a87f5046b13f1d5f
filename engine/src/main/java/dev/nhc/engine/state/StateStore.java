package dev.nhc.engine.state;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.representer.Representer;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The state kept between runs in {@code state_dir}: one YAML file per section. Writes are atomic
 * (temp file, fsync, rename, fsync of the directory) so a run killed by slurmd never leaves a
 * half-written file; a file that cannot be read is moved aside with a warning and the section starts empty.
 */
public final class StateStore {
    /** Looked up when something is logged, not at class load: initialising logging costs a one-shot run ~50-100 ms it rarely needs. */
    private static Logger log() {
        return LoggerFactory.getLogger(StateStore.class);
    }

    private final Path dir;
    private final Map<String, StateSection> sections = new LinkedHashMap<>();
    private final List<String> warnings = new ArrayList<>();

    public StateStore(Path dir) {
        this.dir = dir;
    }

    public Path dir() {
        return dir;
    }

    /** Problems met while loading (corrupt files moved aside); the reports show them. */
    public synchronized List<String> warnings() {
        return List.copyOf(warnings);
    }

    public synchronized StateSection section(String name) {
        return sections.computeIfAbsent(name, n -> new StateSection(n, load(n)));
    }

    private Path fileOf(String name) {
        return dir.resolve(name.replaceAll("[^A-Za-z0-9._-]", "_") + ".yaml");
    }

    private Map<String, Object> load(String name) {
        Path f = fileOf(name);
        if (!Files.exists(f)) {
            return Map.of();
        }
        try {
            String text = Files.readString(f, StandardCharsets.UTF_8);
            Object o = yaml().load(text);
            if (o == null) {
                return Map.of();
            }
            if (!(o instanceof Map<?, ?> m)) {
                throw new IOException("not a map");
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> data = (Map<String, Object>) normalize(m);
            return data;
        } catch (Exception e) {
            Path aside = f.resolveSibling(f.getFileName() + ".corrupt-" + System.currentTimeMillis());
            String msg;
            try {
                Files.move(f, aside, StandardCopyOption.REPLACE_EXISTING);
                msg = "state file " + f + " was unreadable (" + oneLine(e) + "); moved aside to " + aside + " and started afresh";
            } catch (IOException moveFailed) {
                msg = "state file " + f + " was unreadable (" + oneLine(e) + ") and could not be moved aside: " + oneLine(moveFailed);
            }
            log().warn(msg);
            warnings.add(msg);
            return Map.of();
        }
    }

    /** Writes every changed section. Throws with a message naming the file when the disk refuses. */
    public synchronized void flush() throws IOException {
        for (StateSection s : sections.values()) {
            if (s.dirty()) {
                writeAtomically(fileOf(s.name()), yaml().dump(s.snapshot()));
                s.clean();
            }
        }
    }

    /** Writes text to a file so that readers see either the old or the new content, never a part. */
    public static void writeAtomically(Path target, String text) throws IOException {
        Path parent = target.toAbsolutePath().getParent();
        Files.createDirectories(parent);
        Path tmp = Files.createTempFile(parent, "." + target.getFileName(), ".tmp");
        try {
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
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

    /** YAML gives Integer for small numbers; state values are Long everywhere, as in observations. */
    private static Object normalize(Object o) {
        if (o instanceof Integer i) {
            return i.longValue();
        }
        if (o instanceof java.math.BigInteger b) {
            return b.longValue();
        }
        if (o instanceof Map<?, ?> m) {
            Map<String, Object> out = new LinkedHashMap<>();
            m.forEach((k, v) -> out.put(String.valueOf(k), normalize(v)));
            return out;
        }
        if (o instanceof List<?> l) {
            List<Object> out = new ArrayList<>();
            l.forEach(v -> out.add(normalize(v)));
            return out;
        }
        return o;
    }

    private static Yaml yaml() {
        LoaderOptions lo = new LoaderOptions();
        lo.setAllowDuplicateKeys(false);
        DumperOptions d = new DumperOptions();
        d.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
        return new Yaml(new SafeConstructor(lo), new Representer(d), d, lo);
    }

    private static String oneLine(Exception e) {
        String m = e.getMessage();
        return (m == null ? e.getClass().getSimpleName() : m).replace('\n', ' ');
    }
}
