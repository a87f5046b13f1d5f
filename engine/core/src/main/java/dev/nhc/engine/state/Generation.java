package dev.nhc.engine.state;

import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One readable generation of a section on disk: the file it came from, its number and its data.
 * Every write of a section numbers its file one past the highest generation known, in the file
 * itself (key {@value #KEY}) and in the {@link StateJournal}, so that a run can tell the newest
 * generation from an older one and from one that was destroyed. Files without the key (nhc before
 * generations, nhc 0.1.0's YAML) are generation 0.
 */
record Generation(Path file, long number, Map<String, Object> data) {
    /** Not a key any section uses: sections are handed their data without it. */
    static final String KEY = "_generation";

    /** The generation in {@code raw}, read from {@code file}; an exception when its number is not one nhc writes. */
    static Generation of(Path file, Map<String, Object> raw) throws IOException {
        Object n = raw.get(KEY);
        if (n != null && !(n instanceof Long l && l >= 0)) {
            throw new IOException(KEY + " '" + n + "' is not a generation number");
        }
        Map<String, Object> data = new LinkedHashMap<>(raw);
        data.remove(KEY);
        return new Generation(file, n == null ? 0 : (Long) n, data);
    }

    /** What a write puts in the file: the number first, so that {@code head} shows it. */
    static Map<String, Object> numbered(long number, Map<String, Object> data) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put(KEY, number);
        data.forEach((k, v) -> {
            if (!KEY.equals(k)) {
                out.put(k, v);
            }
        });
        return out;
    }
}
