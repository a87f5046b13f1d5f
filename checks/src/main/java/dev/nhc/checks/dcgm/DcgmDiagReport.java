package dev.nhc.checks.dcgm;

import dev.nhc.checks.dcgm.DcgmJson.DcgmOutputException;
import dev.nhc.model.Entity;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What {@code dcgmi diag} reported: one result per test and entity, with DCGM's error ids,
 * severities and categories where the JSON carries them.
 *
 * <p>JSON ({@code -j}) comes in two shapes. DCGM 3.x: top key "DCGM GPU Diagnostic", results
 * name their GPUs in {@code gpu_ids} ("0" or "0,1") and carry {@code warnings} as one string.
 * DCGM 3.x may put {@code error_id}/{@code error_severity}/{@code error_category} on the result.
 * DCGM 4.x: top key "DCGM Diagnostic", results carry {@code entity_group}/{@code entity_id},
 * {@code warnings} is a list of {@code {warning, error_id, error_category, error_severity}} (numbers,
 * DCGM's dcgmError_t, dcgmErrorSeverity_t and dcgmErrorCategory_t), and a test may have a
 * {@code test_summary}. Both nest {@code test_categories[].tests[].results[]}.
 * A document whose top key holds anything but an object of that shape is not guessed at: it is
 * reported as unreadable, because a partial reading could pass a node that failed.
 *
 * <p>Text (no {@code -j}, e.g. a capture an admin pasted): dcgmi's result table, rows
 * {@code | pcie | Fail |} followed by {@code | Warning | …|} rows whose text dcgmi wrapped at a
 * fixed width, sometimes mid-word.
 */
record DcgmDiagReport(List<Result> results, String runtimeError, String format) {

    /** How a test ended on an entity. Any status but pass, fail and warn (skip, not run…) verified nothing. */
    enum Outcome { PASS, WARN, FAIL, SKIP }

    /** One error DCGM attached to a result: its id, severity and category when the JSON says (null when not), and its text. */
    record DiagError(Long id, Long severity, Long category, String text) {
    }

    /** DCGM_FR_PERSISTENCE_MODE: "Persistence mode for GPU N is disabled." */
    static final long PERSISTENCE_MODE = 29;
    /** DCGM_ERROR_CONFIG: "this error can be configured" away. */
    static final long SEVERITY_CONFIG = 5;
    private static final Pattern PERSISTENCE_PROSE = Pattern.compile("^Persistence mode for GPU \\d+ is disabled\\.?");

    /**
     * One test's outcome on one entity ({@link Entity#NODE} when DCGM named none). {@code message}
     * is DCGM's text for it, {@code errors} the errors it is made of.
     */
    record Result(String category, String test, Entity entity, String status, String message, List<DiagError> errors) {
        Result {
            errors = List.copyOf(errors);
        }

        Outcome outcome() {
            return DcgmDiagReport.outcome(status);
        }

        /**
         * A failure that is the node's configuration, not its hardware: every error is persistence mode
         * off, by DCGM's id and configuration severity, or (text output without ids) by DCGM's exact
         * words. Severity alone is not enough: DCGM files other errors under it (a test aborted early,
         * a skipped subtest) that verified nothing.
         */
        boolean configurationOnly() {
            if (outcome() != Outcome.FAIL || errors.isEmpty()) {
                return false;
            }
            for (DiagError e : errors) {
                boolean byId = e.id() != null && e.id() == PERSISTENCE_MODE && e.severity() != null && e.severity() == SEVERITY_CONFIG;
                boolean byText = e.id() == null && e.severity() == null && PERSISTENCE_PROSE.matcher(e.text()).find();
                if (!byId && !byText) {
                    return false;
                }
            }
            return true;
        }
    }

    static final String KEY_V3 = "DCGM GPU Diagnostic";
    static final String KEY_V4 = "DCGM Diagnostic";

    static DcgmDiagReport parse(String text, String what) throws DcgmOutputException {
        String trimmed = text.strip();
        if (trimmed.isEmpty()) {
            throw new DcgmOutputException(what + " is empty");
        }
        return looksLikeJson(text) ? parseJson(text, what) : parseText(text, what);
    }

    /** JSON unless a table line comes first; dcgmi may print a status sentence before either. */
    private static boolean looksLikeJson(String text) {
        for (String line : text.split("\n")) {
            String l = line.strip();
            if (l.startsWith("{")) {
                return true;
            }
            if (l.startsWith("|") || l.startsWith("+")) {
                return false;
            }
        }
        return false;
    }

    static Outcome outcome(String status) {
        String s = status.strip().toLowerCase(Locale.ROOT);
        if (s.startsWith("fail")) {
            return Outcome.FAIL;
        }
        if (s.startsWith("warn")) {
            return Outcome.WARN;
        }
        if (s.startsWith("pass")) {
            return Outcome.PASS;
        }
        return Outcome.SKIP; // skip, not run, or a word this nhc does not know: nothing verified
    }

    // ---- JSON ----------------------------------------------------------------------------

    private static DcgmDiagReport parseJson(String text, String what) throws DcgmOutputException {
        Object doc = DcgmJson.parse(text, what);
        if (!(doc instanceof Map<?, ?> root)) {
            throw new DcgmOutputException("cannot parse " + what + ": the document is " + DcgmJson.kind(doc) + ", not an object");
        }
        String key = root.containsKey(KEY_V4) ? KEY_V4 : root.containsKey(KEY_V3) ? KEY_V3 : null;
        if (key == null) {
            throw new DcgmOutputException("cannot parse " + what + " at line 1: expected \"" + KEY_V4 + "\" (DCGM 4) or \""
                    + KEY_V3 + "\" (DCGM 3) at the top, found " + root.keySet().stream().limit(4).map(k -> "\"" + k + "\"").toList());
        }
        Object body = root.get(key);
        if (!(body instanceof Map<?, ?> diag)) {
            throw new DcgmOutputException("cannot parse " + what + " at line " + DcgmJson.lineOf(text, key) + ": \"" + key
                    + "\" holds " + DcgmJson.kind(body) + " where dcgmi writes an object with \"test_categories\"");
        }
        String runtimeError = diag.get("runtime_error") instanceof String s && !s.isBlank() ? s.strip() : null;
        List<Map<?, ?>> categories = new ArrayList<>();
        Object cats = diag.get("test_categories");
        if (cats instanceof List<?> list) {
            for (Object c : list) {
                categories.add(requireMap(c, "an item of \"test_categories\"", text, "test_categories", what));
            }
        } else if (diag.get("tests") instanceof List<?>) {
            categories.add(diag); // some DCGM 4 builds hoist "tests" to the top
        } else if (runtimeError == null) {
            throw new DcgmOutputException("cannot parse " + what + " at line " + DcgmJson.lineOf(text, key) + ": \"" + key
                    + "\" has no \"test_categories\" list");
        }
        List<Result> results = new ArrayList<>();
        for (Map<?, ?> cat : categories) {
            String category = cat.get("category") instanceof String s ? s : "";
            if (!(cat.get("tests") instanceof List<?> tests)) {
                throw new DcgmOutputException("cannot parse " + what + " at line " + DcgmJson.lineOf(text, "tests")
                        + ": category \"" + category + "\" has no \"tests\" list");
            }
            for (Object t : tests) {
                Map<?, ?> test = requireMap(t, "a test of category \"" + category + "\"", text, "tests", what);
                String name = test.get("name") instanceof String s ? s : test.get("test_name") instanceof String s2 ? s2 : "?";
                int before = results.size();
                if (test.get("results") instanceof List<?> rs) {
                    for (Object r : rs) {
                        Map<?, ?> res = requireMap(r, "a result of test \"" + name + "\"", text, name, what);
                        String status = res.get("status") instanceof String s ? s : "";
                        List<DiagError> errors = errors(res);
                        for (Entity entity : entities(res)) {
                            results.add(new Result(category, name, entity, status, message(errors, res), errors));
                        }
                    }
                }
                if (results.size() == before && test.get("test_summary") instanceof Map<?, ?> summary
                        && summary.get("status") instanceof String s) {
                    List<DiagError> errors = errors(summary);
                    results.add(new Result(category, name, Entity.NODE, s, message(errors, summary), errors));
                }
            }
        }
        return new DcgmDiagReport(results, runtimeError, key.equals(KEY_V4) ? "json-v4" : "json-v3");
    }

    private static Map<?, ?> requireMap(Object o, String what, String text, String near, String source) throws DcgmOutputException {
        if (o instanceof Map<?, ?> m) {
            return m;
        }
        throw new DcgmOutputException("cannot parse " + source + " near line " + DcgmJson.lineOf(text, near) + ": "
                + what + " is " + DcgmJson.kind(o) + ", not an object");
    }

    private static List<Entity> entities(Map<?, ?> res) {
        Object id = res.get("entity_id");
        if (id != null) {
            Object group = res.get("entity_group");
            return List.of(DcgmJson.entity(group instanceof String g ? g : "GPU", id));
        }
        Object gpus = res.get("gpu_ids");
        if (gpus == null) {
            gpus = res.get("gpu_id");
        }
        if (gpus instanceof Number n) {
            return List.of(DcgmJson.entity("GPU", n.longValue()));
        }
        if (gpus instanceof String s && !s.isBlank()) {
            List<Entity> out = new ArrayList<>();
            for (String part : s.split(",")) {
                if (!part.isBlank()) {
                    out.add(DcgmJson.entity("GPU", part.strip()));
                }
            }
            return out;
        }
        if (gpus instanceof List<?> l && !l.isEmpty()) {
            return l.stream().map(g -> DcgmJson.entity("GPU", String.valueOf(g).strip())).toList();
        }
        return List.of(Entity.NODE);
    }

    /**
     * The errors of a result: DCGM 4's warning list (each with its own id, severity and category),
     * else DCGM 3's warning string with the result's own error_id / error_severity / error_category.
     */
    private static List<DiagError> errors(Map<?, ?> res) {
        List<DiagError> out = new ArrayList<>();
        Object w = res.get("warnings");
        if (w instanceof String s && !s.isBlank()) {
            out.add(new DiagError(number(res.get("error_id")), number(res.get("error_severity")), number(res.get("error_category")), s.strip()));
        } else if (w instanceof List<?> list) {
            for (Object item : list) {
                if (item instanceof Map<?, ?> m) {
                    Object text = m.get("warning") != null ? m.get("warning") : m.get("message");
                    out.add(new DiagError(number(m.get("error_id")), number(m.get("error_severity")), number(m.get("error_category")),
                            text == null ? "" : String.valueOf(text).strip()));
                } else if (item != null) {
                    out.add(new DiagError(null, null, null, item.toString().strip()));
                }
            }
        }
        if (out.isEmpty() && res.get("error") instanceof String e && !e.isBlank()) {
            out.add(new DiagError(number(res.get("error_id")), number(res.get("error_severity")), number(res.get("error_category")), e.strip()));
        }
        return out;
    }

    /** A number DCGM wrote as a number or as digits in quotes; null otherwise. */
    private static Long number(Object o) {
        if (o instanceof Number n) {
            return n.longValue();
        }
        if (o instanceof String s && s.strip().matches("\\d{1,9}")) {
            return Long.parseLong(s.strip());
        }
        return null;
    }

    /** DCGM's own words: the errors (with their ids), else the info line. */
    private static String message(List<DiagError> errors, Map<?, ?> res) {
        List<String> parts = new ArrayList<>();
        for (DiagError e : errors) {
            String text = e.text().isEmpty() && e.id() != null ? "no text" : e.text();
            parts.add(text + (e.id() != null ? " (" + DcgmErrorCodes.get().describe(e.id()) + ")" : ""));
        }
        if (parts.isEmpty() && res.get("info") instanceof String i && !i.isBlank()) {
            parts.add(i.strip());
        }
        if (parts.isEmpty() && res.get("info") instanceof List<?> infos) {
            for (Object i : infos) {
                if (i != null && !String.valueOf(i).isBlank()) {
                    parts.add(String.valueOf(i).strip());
                }
            }
        }
        return String.join("; ", parts);
    }

    // ---- text ----------------------------------------------------------------------------

    private static final Pattern ROW = Pattern.compile("^\\|([^|]*)\\|(.*)\\|\\s*$");
    private static final Pattern STATUS = Pattern.compile("^(Pass|Fail|Warn|Warning|Skip|Not Run)\\b(.*)$", Pattern.CASE_INSENSITIVE);
    private static final Pattern GPU_LIST = Pattern.compile("GPU[s]?\\s*:?\\s*([0-9][0-9,\\s]*)");

    private static DcgmDiagReport parseText(String text, String what) throws DcgmOutputException {
        List<Result> results = new ArrayList<>();
        Map<String, Object> current = null; // test, status, gpus, fragments
        List<String> fragments = new ArrayList<>();
        for (String line : text.split("\n")) {
            Matcher m = ROW.matcher(line.stripTrailing());
            if (!m.matches()) {
                continue;
            }
            String left = m.group(1).strip();
            String right = cell(m.group(2));
            Matcher st = STATUS.matcher(right.strip());
            if (!left.isEmpty() && !isDetailLabel(left) && st.matches()) {
                flush(current, fragments, results);
                current = new LinkedHashMap<>();
                current.put("test", left);
                current.put("status", st.group(1));
                current.put("gpus", gpus(st.group(2)));
                fragments = new ArrayList<>();
            } else if (current != null && (left.isEmpty() || isDetailLabel(left))) {
                if (!right.isBlank()) {
                    if (isDetailLabel(left) && !fragments.isEmpty()) {
                        fragments.add("\u0000"); // a new message starts: never glue it to the last one
                    }
                    fragments.add(right);
                }
            } else {
                flush(current, fragments, results);
                current = null;
                fragments = new ArrayList<>();
            }
        }
        flush(current, fragments, results);
        if (results.isEmpty()) {
            throw new DcgmOutputException("cannot parse " + what + ": neither JSON nor dcgmi's result table (first line: "
                    + DcgmJson.shorten(DcgmJson.firstLine(text)) + ")");
        }
        return new DcgmDiagReport(results, null, "text");
    }

    private static boolean isDetailLabel(String left) {
        String l = left.toLowerCase(Locale.ROOT);
        return l.equals("warning") || l.equals("error") || l.equals("info") || l.startsWith("warning") || l.startsWith("error");
    }

    /** The cell's text without dcgmi's one-space padding on the left and its fill on the right. */
    private static String cell(String raw) {
        String s = raw.startsWith(" ") ? raw.substring(1) : raw;
        return s.stripTrailing();
    }

    @SuppressWarnings("unchecked")
    private static void flush(Map<String, Object> current, List<String> fragments, List<Result> out) {
        if (current == null) {
            return;
        }
        String message = unwrap(fragments);
        List<DiagError> errors = new ArrayList<>();
        for (String part : message.split("; ")) {
            if (!part.isBlank()) {
                errors.add(new DiagError(null, null, null, part.strip()));
            }
        }
        List<Entity> gpus = (List<Entity>) current.get("gpus");
        for (Entity entity : gpus.isEmpty() ? List.of(Entity.NODE) : gpus) {
            out.add(new Result("", (String) current.get("test"), entity, (String) current.get("status"), message, errors));
        }
    }

    /** Rejoins text dcgmi wrapped at a fixed width: a full-width fragment was cut mid-word, a shorter one at a space. */
    private static String unwrap(List<String> fragments) {
        int width = 0;
        for (String f : fragments) {
            width = Math.max(width, f.length());
        }
        StringBuilder sb = new StringBuilder();
        String prev = null;
        for (String f : fragments) {
            if (f.equals("\u0000")) {
                sb.append("; ");
                prev = null;
                continue;
            }
            if (prev != null && prev.length() < width) {
                sb.append(' ');
            }
            sb.append(prev == null ? f.stripLeading() : f);
            prev = f;
        }
        return sb.toString().strip();
    }

    private static List<Entity> gpus(String rest) {
        Matcher g = GPU_LIST.matcher(rest);
        List<Entity> out = new ArrayList<>();
        if (g.find()) {
            for (String id : g.group(1).split("[,\\s]+")) {
                if (!id.isBlank()) {
                    out.add(DcgmJson.entity("GPU", id.strip()));
                }
            }
        }
        return out;
    }
}
