package dev.nhc.checks.dcgm;

import dev.nhc.checks.dcgm.DcgmJson.DcgmOutputException;
import dev.nhc.model.Entity;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
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
 * dcgmi fills the places of tests it did not run with {@code null} ({@code "tests": [{…}, null]}):
 * they are no test, and are passed over. {@code dcgmi diag --iterations N -j} wraps one such
 * document per run in {@code "iterations"}, with an {@code "Overall Result"}: every run's results
 * count, each test named with its run. {@code gaps} says what a capture pasted in part leaves out.
 *
 * <p>Text (no {@code -j}, e.g. a capture an admin pasted): {@link DcgmDiagTable}.
 */
record DcgmDiagReport(List<Result> results, String runtimeError, String format, List<String> gaps) {

    DcgmDiagReport {
        results = List.copyOf(results);
        gaps = List.copyOf(gaps);
    }

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
        return DcgmDiagTable.isTable(text) ? DcgmDiagTable.parse(text, what) : parseJson(text, what);
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
        if (root.get("iterations") instanceof List<?> runs) {
            return iterations(root, runs, text, what);
        }
        return document(root, text, what);
    }

    /** {@code --iterations N}: each run's results, named with the run; a run that stopped the rest says so in "Overall Result". */
    private static DcgmDiagReport iterations(Map<?, ?> root, List<?> runs, String text, String what) throws DcgmOutputException {
        List<Result> results = new ArrayList<>();
        List<String> errors = new ArrayList<>();
        int n = 0;
        for (Object run : runs) {
            n++;
            if (!(run instanceof Map<?, ?> doc)) {
                continue; // a run that did not happen
            }
            DcgmDiagReport one = document(doc, text, what);
            for (Result r : one.results()) {
                results.add(new Result(r.category(), r.test() + " (run " + n + ")", r.entity(), r.status(), r.message(), r.errors()));
            }
            if (one.runtimeError() != null) {
                errors.add("run " + n + ": " + one.runtimeError());
            }
        }
        if (root.get("Overall Result") instanceof String overall && outcome(overall) == Outcome.FAIL) {
            String why = root.get(KEY_WARNING) instanceof String w ? w : "";
            results.add(new Result("", "Overall Result", Entity.NODE, overall, why, why.isBlank() ? List.of() : List.of(new DiagError(null, null, null, why))));
        }
        return new DcgmDiagReport(results, errors.isEmpty() ? null : String.join("; ", errors), "json-iterations", List.of());
    }

    /** "Warning" beside "Overall Result": why iterations stopped. */
    private static final String KEY_WARNING = "warning";

    private static DcgmDiagReport document(Map<?, ?> root, String text, String what) throws DcgmOutputException {
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
                if (c != null) {
                    categories.add(requireMap(c, "an item of \"test_categories\"", text, "test_categories", what));
                }
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
                if (t == null) {
                    continue; // the place of a test dcgmi did not run
                }
                Map<?, ?> test = requireMap(t, "a test of category \"" + category + "\"", text, "tests", what);
                String name = test.get("name") instanceof String s ? s : test.get("test_name") instanceof String s2 ? s2 : "?";
                int before = results.size();
                if (test.get("results") instanceof List<?> rs) {
                    for (Object r : rs) {
                        if (r == null) {
                            continue;
                        }
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
        return new DcgmDiagReport(results, runtimeError, key.equals(KEY_V4) ? "json-v4" : "json-v3", List.of());
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
}
