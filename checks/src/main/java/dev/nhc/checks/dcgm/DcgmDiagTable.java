package dev.nhc.checks.dcgm;

import dev.nhc.checks.dcgm.DcgmDiagReport.DiagError;
import dev.nhc.checks.dcgm.DcgmDiagReport.Outcome;
import dev.nhc.checks.dcgm.DcgmDiagReport.Result;
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
 * {@code dcgmi diag} without {@code -j}: the result table an admin pastes, with or without its
 * "Successfully ran diagnostic for group." line, whole or in part. Two layouts:
 *
 * <pre>
 * DCGM 2.x / 3.x                                     DCGM 4.x
 * | PCIe                      | Fail - GPU: 0    |   | pcie                      | Fail           |
 * | Warning                   | GPU 0 ...        |   |                           | GPU0: Fail     |
 *                                                    | Warning: GPU0             | ...            |
 * </pre>
 *
 * dcgmi wraps messages at a fixed width, sometimes mid-word. In DCGM 4 the per-entity rows say
 * "Fail" for a warning too (dcgmi prints the test's own row with "Warn"), so an entity's outcome
 * is never worse than its test's. An entity row whose test row is not in the capture (a paste that
 * starts inside a test) is judged by itself. A table without its header row or its closing border
 * was pasted in part: it is judged on its rows and said to be partial.
 */
final class DcgmDiagTable {
    private static final Pattern ROW = Pattern.compile("^\\|([^|]*)\\|(.*)\\|\\s*$");
    private static final Pattern STATUS = Pattern.compile("^(Pass|Fail|Warn|Warning|Skip|Not Run)\\b(.*)$", Pattern.CASE_INSENSITIVE);
    private static final Pattern GPU_LIST = Pattern.compile("GPU[s]?\\s*:?\\s*([0-9][0-9,\\s]*)");
    /** A DCGM 4 entity row: "GPU0: Fail", "Switch3: Pass", "CPU0: Skip". */
    private static final Pattern ENTITY = Pattern.compile("^([A-Za-z_]+?)\\s?(\\d+): (Pass|Fail|Warn|Skip|Not Run)$", Pattern.CASE_INSENSITIVE);
    /** A DCGM 4 message label naming its entity: "Warning: GPU0", "Info: GPU1". */
    private static final Pattern LABEL_ENTITY = Pattern.compile("^(Warning|Error|Info): ([A-Za-z_]+?)\\s?(\\d+)$", Pattern.CASE_INSENSITIVE);
    private static final Pattern HEADER = Pattern.compile("^\\|\\s*Diagnostic\\s*\\|\\s*Result\\s*\\|\\s*$");
    private static final Pattern BORDER = Pattern.compile("^\\+[-=+]+\\+\\s*$");

    /** One test being read: its row, its entity rows, and the messages of each. */
    private static final class Test {
        final String name;
        final String status;
        final List<Entity> gpus;
        final Map<Entity, String> entities = new LinkedHashMap<>();
        final Map<Entity, List<String>> fragments = new LinkedHashMap<>();
        Entity messageOf = Entity.NODE;

        Test(String name, String status, List<Entity> gpus) {
            this.name = name;
            this.status = status;
            this.gpus = gpus;
        }

        /** The outcome of the test on these GPUs, as DCGM 3 lists them on its rows ("Pass - GPUs: 1, 2", "Fail - GPU: 0"). */
        void byGpus(String outcome, List<Entity> on) {
            for (Entity g : on) {
                entities.put(g, outcome);
            }
        }

        void message(String label, String text) {
            List<String> f = fragments.computeIfAbsent(messageOf, k -> new ArrayList<>());
            if (!label.isEmpty() && !f.isEmpty()) {
                f.add("\u0000"); // a new message starts: never glue it to the last one
            }
            f.add(text);
        }
    }

    private DcgmDiagTable() {
    }

    /** Whether a table row comes before any JSON: dcgmi may print a status sentence before either. */
    static boolean isTable(String text) {
        for (String line : text.split("\n")) {
            String l = line.strip();
            if (l.startsWith("{")) {
                return false;
            }
            if (l.startsWith("|") || l.startsWith("+")) {
                return true;
            }
        }
        return false;
    }

    static DcgmDiagReport parse(String text, String what) throws DcgmOutputException {
        List<Result> results = new ArrayList<>();
        Test current = null;
        boolean header = false;
        String lastTableLine = null;
        for (String raw : text.split("\n")) {
            String line = raw.stripTrailing();
            if (line.startsWith("|") || line.startsWith("+")) {
                lastTableLine = line;
            }
            if (HEADER.matcher(line).matches()) {
                header = true;
                continue;
            }
            Matcher m = ROW.matcher(line);
            if (!m.matches()) {
                continue;
            }
            String left = m.group(1).strip();
            String right = cell(m.group(2));
            Matcher st = STATUS.matcher(right.strip());
            Matcher entity = ENTITY.matcher(right.strip());
            if (!left.isEmpty() && !isDetailLabel(left) && st.matches()) {
                flush(current, results);
                current = new Test(left, st.group(1), gpus(st.group(2)));
                current.byGpus(st.group(1), current.gpus);
            } else if (left.isEmpty() && current != null && st.matches() && !gpus(st.group(2)).isEmpty()) {
                // DCGM 3: a second outcome of the same test, for other GPUs ("| | Fail - GPU: 0 |")
                current.byGpus(st.group(1), gpus(st.group(2)));
            } else if (current == null && isDetailLabel(left) && !right.isBlank() && !left.toLowerCase(Locale.ROOT).startsWith("info")) {
                // An error or warning whose test row is not in the capture (or that stopped the diag before any test ran)
                boolean error = left.toLowerCase(Locale.ROOT).startsWith("error");
                current = new Test("(a test the capture does not name)", error ? "Fail" : "Warn", List.of());
                current.message(left, right);
            } else if (left.isEmpty() && entity.matches()) {
                if (current == null) {
                    current = new Test("(a test the capture does not name)", null, List.of());
                }
                Entity e = DcgmJson.entity(entity.group(1), entity.group(2));
                current.entities.put(e, entity.group(3));
                current.messageOf = e;
            } else if (current != null && (left.isEmpty() || isDetailLabel(left))) {
                Matcher labelled = LABEL_ENTITY.matcher(left);
                if (labelled.matches()) {
                    current.messageOf = DcgmJson.entity(labelled.group(2), labelled.group(3));
                } else if (!left.isEmpty()) {
                    current.messageOf = Entity.NODE;
                }
                if (!right.isBlank()) {
                    current.message(left, right);
                }
            } else {
                flush(current, results);
                current = null;
            }
        }
        flush(current, results);
        if (results.isEmpty()) {
            throw new DcgmOutputException("cannot parse " + what + ": neither JSON nor dcgmi's result table (first line: "
                    + DcgmJson.shorten(DcgmJson.firstLine(text)) + ")");
        }
        List<String> gaps = new ArrayList<>();
        if (!header) {
            gaps.add("the table starts without its '| Diagnostic | Result |' header: tests before the first row shown are not in it");
        }
        if (lastTableLine == null || !BORDER.matcher(lastTableLine).matches()) {
            gaps.add("the table ends without its closing border: tests after the last row shown are not in it");
        }
        return new DcgmDiagReport(results, null, "text", gaps);
    }

    private static boolean isDetailLabel(String left) {
        String l = left.toLowerCase(Locale.ROOT);
        return l.startsWith("warning") || l.startsWith("error") || l.startsWith("info");
    }

    /** The cell's text without dcgmi's one-space padding on the left and its fill on the right. */
    private static String cell(String raw) {
        String s = raw.startsWith(" ") ? raw.substring(1) : raw;
        return s.stripTrailing();
    }

    /**
     * The test's results: one per entity row (never worse than the test's own row), else one per
     * GPU its row names (DCGM 3: "Fail - GPU: 0"), else one for the node; a test whose row fails or
     * warns without any entity doing so fails or warns on the node.
     */
    private static void flush(Test t, List<Result> out) {
        if (t == null) {
            return;
        }
        String nodeMessage = unwrap(t.fragments.getOrDefault(Entity.NODE, List.of()));
        if (!t.entities.isEmpty()) {
            boolean entityExplains = false;
            for (Map.Entry<Entity, String> e : t.entities.entrySet()) {
                String status = e.getValue();
                if (t.status != null && DcgmDiagReport.outcome(t.status) == Outcome.WARN && DcgmDiagReport.outcome(status) == Outcome.FAIL) {
                    status = t.status;
                }
                Outcome o = DcgmDiagReport.outcome(status);
                entityExplains |= o == Outcome.FAIL || o == Outcome.WARN;
                String message = unwrap(t.fragments.getOrDefault(e.getKey(), List.of()));
                if (message.isEmpty()) {
                    message = nodeMessage;
                }
                out.add(new Result("", t.name, e.getKey(), status, message, errors(message)));
            }
            Outcome test = t.status == null ? Outcome.PASS : DcgmDiagReport.outcome(t.status);
            if (!entityExplains && (test == Outcome.FAIL || test == Outcome.WARN)) {
                out.add(new Result("", t.name, Entity.NODE, t.status, nodeMessage, errors(nodeMessage)));
            }
            return;
        }
        for (Entity entity : t.gpus.isEmpty() ? List.of(Entity.NODE) : t.gpus) {
            out.add(new Result("", t.name, entity, t.status, nodeMessage, errors(nodeMessage)));
        }
    }

    private static List<DiagError> errors(String message) {
        List<DiagError> errors = new ArrayList<>();
        for (String part : message.split("; ")) {
            if (!part.isBlank()) {
                errors.add(new DiagError(null, null, null, part.strip()));
            }
        }
        return errors;
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
