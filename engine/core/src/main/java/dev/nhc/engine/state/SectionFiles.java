package dev.nhc.engine.state;

import dev.nhc.engine.config.ConfigException;
import dev.nhc.engine.config.YamlReader;
import dev.nhc.engine.files.FileStat;
import dev.nhc.engine.files.IoReason;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A section's files in the state directory and what can be read from them: {@code NAME.json}, its
 * copy {@code NAME.json.prev}, nhc 0.1.0's {@code NAME.yaml}, and the temp files of a write that
 * was killed before it finished ({@link OrphanedTemps}). Nothing is followed through a link; a file
 * that is not a regular file, is too large, empty or not a state file is unreadable, with the reason.
 */
final class SectionFiles {
    /** State files hold counters and cursors, a few KB; far beyond this one is not nhc's. */
    static final int MAX_BYTES = 16 * 1024 * 1024;

    private SectionFiles() {
    }

    /** The files' name for a section: its name with anything but letters, digits, '.', '_' and '-' made '_'. */
    static String base(String name) {
        StringBuilder safe = new StringBuilder(name.length());
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean plain = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-';
            safe.append(plain ? c : '_');
        }
        return safe.toString();
    }

    /** Moves an unreadable state file aside (NAME.corrupt-MILLIS) for an admin to look at; says what was done, or null when it was gone. */
    static String moveAside(Path bad) {
        Path aside = bad.resolveSibling(bad.getFileName() + ".corrupt-" + System.currentTimeMillis());
        try {
            GenerationWriter.rename(bad, aside);
            return "moved the unreadable state file " + bad + " aside to " + aside;
        } catch (NoSuchFileException gone) {
            return null;
        } catch (IOException e) {
            return "could not move the unreadable state file " + bad + " aside: " + IoReason.of(e);
        }
    }

    static Path current(Path dir, String base) {
        return dir.resolve(base + ".json");
    }

    static Path copy(Path dir, String base) {
        return dir.resolve(base + ".json.prev");
    }

    static Path legacy(Path dir, String base) {
        return dir.resolve(base + ".yaml");
    }

    /**
     * What the files hold. {@code newest}: the readable generation with the highest number (the
     * current file before its copy before the YAML when numbers tie), or a leftover temp file's when
     * it is whole and strictly newer ({@code recovered}); null when none could be read.
     * {@code unreadable}/{@code why}: the section's files that are there but could not be read (not
     * temp files: a torn one is what a killed write leaves, and is only removed).
     */
    record Found(Generation newest, boolean recovered, List<Path> unreadable, List<String> why) {
    }

    static Found read(Path dir, String base, List<Path> temps) {
        List<Path> files = List.of(current(dir, base), copy(dir, base), legacy(dir, base));
        Generation newest = null;
        List<Path> unreadable = new ArrayList<>();
        List<String> why = new ArrayList<>();
        for (Path f : files) {
            try {
                Generation g = read(f, f == files.get(2));
                if (g != null && (newest == null || g.number() > newest.number())) {
                    newest = g;
                }
            } catch (IOException e) {
                unreadable.add(f);
                why.add(f.getFileName() + " (" + IoReason.of(e) + ")");
            }
        }
        boolean recovered = false;
        for (Path t : temps) {
            try {
                Generation g = read(t, false);
                if (g != null && (newest == null || g.number() > newest.number())) {
                    newest = g;
                    recovered = true;
                }
            } catch (IOException torn) {
                // cut short by the kill that left it: nothing in it was ever the section's state
            }
        }
        return new Found(newest, recovered, unreadable, why);
    }

    /** The generation in {@code f}; null when there is no such file; an exception when it is there but not a readable state file. */
    static Generation read(Path f, boolean yaml) throws IOException {
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
        } catch (NoSuchFileException gone) {
            return null;
        }
        if (text.isBlank()) {
            throw new IOException("is empty");
        }
        if (!yaml) {
            return Generation.of(f, StateFile.parse(text));
        }
        try {
            Object o = YamlReader.read(f.toString(), text, MAX_BYTES).toPlain();
            if (!(o instanceof Map<?, ?> m)) {
                throw new IOException("not a map");
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> data = (Map<String, Object>) m;
            return Generation.of(f, data);
        } catch (ConfigException e) {
            throw new IOException(e.problems().get(0).toString(), e);
        }
    }
}
