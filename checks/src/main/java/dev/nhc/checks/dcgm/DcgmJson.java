package dev.nhc.checks.dcgm;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.jr.ob.JSON;

import dev.nhc.model.Entity;

import java.io.IOException;
import java.util.List;
import java.util.Map;

/** JSON as dcgmi prints it, read into plain maps and lists, with errors that say where. */
final class DcgmJson {
    private DcgmJson() {
    }

    /**
     * Parses {@code text} as one JSON document. dcgmi sometimes prints a line before the JSON
     * (e.g. a status sentence, which may itself hold a brace), so the document starts at the first
     * line that starts with '{' (else at the first '{'); line numbers in errors still count from the
     * start of {@code text}.
     */
    static Object parse(String text, String what) throws DcgmOutputException {
        int start = jsonStart(text);
        if (start < 0) {
            throw new DcgmOutputException("cannot parse " + what + ": no JSON object in it (first line: "
                    + shorten(firstLine(text)) + ")");
        }
        int lineOffset = (int) text.substring(0, start).chars().filter(c -> c == '\n').count();
        try {
            return JSON.std.anyFrom(text.substring(start));
        } catch (JsonProcessingException e) {
            JsonLocation loc = e.getLocation();
            String where = loc == null ? "" : " at line " + (loc.getLineNr() + lineOffset) + ", column " + loc.getColumnNr();
            throw new DcgmOutputException("cannot parse " + what + where + ": " + e.getOriginalMessage().lines().findFirst().orElse(""));
        } catch (IOException e) {
            throw new DcgmOutputException("cannot parse " + what + ": " + e.getMessage());
        }
    }

    /** Where the JSON document starts: the first line that starts with '{', else the first '{', else -1. */
    static int jsonStart(String text) {
        int at = 0;
        for (String line : text.split("\n", -1)) {
            if (line.stripLeading().startsWith("{")) {
                return at + line.indexOf('{');
            }
            at += line.length() + 1;
        }
        return text.indexOf('{');
    }

    /** The 1-based line on which {@code "key"} first appears, for errors about the shape of the document. */
    static int lineOf(String text, String key) {
        int i = text.indexOf('"' + key + '"');
        if (i < 0) {
            return 1;
        }
        return 1 + (int) text.substring(0, i).chars().filter(c -> c == '\n').count();
    }

    static String kind(Object v) {
        if (v instanceof Map) {
            return "an object";
        }
        if (v instanceof List) {
            return "a list";
        }
        if (v == null) {
            return "null";
        }
        return v instanceof String ? "a string" : "a " + v.getClass().getSimpleName().toLowerCase(java.util.Locale.ROOT);
    }

    static String firstLine(String text) {
        for (String l : text.split("\n")) {
            if (!l.isBlank()) {
                return l.strip();
            }
        }
        return "";
    }

    static String shorten(String s) {
        return s.length() > 120 ? s.substring(0, 120) + "…" : s;
    }

    /**
     * The entity DCGM names by group and id, typed as nhc names it everywhere: "GPU"/3 is GPU 3,
     * "Switch"/0 NVSwitch 0, DCGM's "None" group the node; other groups (CPU, GPU_I, Link…) keep
     * DCGM's group name.
     */
    static Entity entity(String group, Object id) {
        String g = group == null ? "GPU" : group.strip();
        String eid = String.valueOf(id).strip();
        switch (g.toUpperCase(java.util.Locale.ROOT)) {
            case "GPU" -> {
                if (eid.matches("\\d{1,6}")) {
                    return Entity.gpu(Integer.parseInt(eid), null);
                }
                return Entity.of(Entity.Kind.GPU, eid, "GPU " + eid);
            }
            case "SWITCH", "NVSWITCH" -> {
                return new Entity(Entity.Kind.NVSWITCH, eid, "NVSwitch " + eid, null);
            }
            case "NONE", "" -> {
                return Entity.NODE;
            }
            default -> {
                return new Entity(Entity.Kind.DEVICE, g.toLowerCase(java.util.Locale.ROOT) + eid, g + " " + eid, null);
            }
        }
    }

    /** dcgmi's output did not have the shape nhc knows; the message says where and what. */
    static final class DcgmOutputException extends Exception {
        private static final long serialVersionUID = 1L;

        DcgmOutputException(String message) {
            super(message);
        }
    }
}
