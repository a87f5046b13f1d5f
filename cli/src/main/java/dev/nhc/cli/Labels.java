package dev.nhc.cli;

import dev.nhc.checks.capture.CaptureFile;
import dev.nhc.model.Severity;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * What a set of captures should be judged, for {@code nhc backtest --labels FILE}: one line per
 * capture, its fields separated by " | " (a space on each side, so that a regex may hold "a|b"):
 *
 * <pre>
 * # capture | verdict | message (a regex the findings must match) | why (what the vendor's documentation says)
 * kernel-log/xid79.log | fail | XID 79 | NVIDIA: Xid 79, GPU has fallen off the bus: drain, reboot, inspect the GPU
 * nvidia-smi/healthy.txt | pass | - | every counter zero
 * </pre>
 *
 * The capture is its path under the backtested directory; the verdict one of pass, warn, fail,
 * unknown; a message of {@code -} asks nothing of the findings. Lines starting with '#' and blank
 * lines are skipped.
 */
final class Labels {
    private static final String SEPARATOR = " | ";

    /** One capture's label, with the line it is on. */
    record Label(String capture, Severity verdict, Pattern message, String why, int line) {

        /** Whether a capture judged {@code severity}, whose findings read {@code text}, is what the label says. */
        boolean matches(Severity severity, String text) {
            return severity == verdict && (message == null || message.matcher(text).find());
        }

        /** The label in words, for a row that does not match it. */
        String expected() {
            return verdict.label() + (message == null ? "" : " /" + message.pattern() + "/");
        }
    }

    /** The labels file cannot be read; the message names the file and line. */
    static final class Invalid extends Exception {
        private static final long serialVersionUID = 1L;

        Invalid(String message) {
            super(message);
        }
    }

    private Labels() {
    }

    /** The labels of {@code file}, by capture, in the file's order. */
    static Map<String, Label> read(Path file) throws IOException, Invalid {
        String text = CaptureFile.readText(file);
        Map<String, Label> out = new LinkedHashMap<>();
        List<String> problems = new ArrayList<>();
        String[] lines = text.split("\r?\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].strip();
            int n = i + 1;
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String[] f = line.split(Pattern.quote(SEPARATOR), 4);
            if (f.length < 4) {
                problems.add(file + ":" + n + ": expected 'capture | verdict | message | why', found " + f.length + " field"
                        + (f.length == 1 ? "" : "s"));
                continue;
            }
            Severity verdict;
            try {
                verdict = Severity.parse(f[1].strip());
            } catch (IllegalArgumentException e) {
                problems.add(file + ":" + n + ": " + e.getMessage());
                continue;
            }
            Pattern message = null;
            String m = f[2].strip();
            if (!m.equals("-")) {
                try {
                    message = Pattern.compile(m);
                } catch (PatternSyntaxException e) {
                    problems.add(file + ":" + n + ": the message is not a regular expression: " + e.getDescription() + " at " + e.getIndex());
                    continue;
                }
            }
            String capture = f[0].strip();
            Label previous = out.put(capture, new Label(capture, verdict, message, f[3].strip(), n));
            if (previous != null) {
                problems.add(file + ":" + n + ": " + capture + " is labelled twice (first at line " + previous.line() + ")");
            }
        }
        if (!problems.isEmpty()) {
            throw new Invalid(String.join("\n", problems));
        }
        return out;
    }
}
