package dev.nhc.cli;

import dev.nhc.checks.capture.CaptureFile;
import dev.nhc.checks.replay.CaptureKind;
import dev.nhc.checks.replay.ReplayInputs;
import dev.nhc.engine.plan.Plan;
import dev.nhc.model.Finding;
import dev.nhc.model.Severity;
import dev.nhc.model.Verdict;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * A config's verdict on every capture under a directory, each replayed alone and told apart by its
 * content: what {@code nhc backtest} prints. A file that is no capture nhc reads, or that cannot be
 * read at all, is a row judged UNKNOWN with the reason, never skipped and never a pass.
 */
final class Backtest {

    /**
     * One capture's outcome: its kind (null when not recognised), the verdict (null when it could
     * not be replayed, and then {@code error} says why) and the replay's notes.
     */
    record Row(String capture, CaptureKind kind, Verdict verdict, String error, List<String> notes) {

        Severity severity() {
            return verdict == null ? Severity.UNKNOWN : verdict.severity();
        }

        /** What the findings say, one "check: message" a line; the error when there was no verdict. */
        String text() {
            if (verdict == null) {
                return error;
            }
            List<String> lines = new ArrayList<>();
            for (Finding f : verdict.findings()) {
                lines.add(f.check() + ": " + f.message());
            }
            return String.join("\n", lines);
        }
    }

    private Backtest() {
    }

    /** The rows to show, by index: every one, or with {@code before} (the same captures by another config) those whose verdict changed. */
    static List<Integer> shown(List<Row> rows, List<Row> before) {
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < rows.size(); i++) {
            if (before == null || before.get(i).severity() != rows.get(i).severity()) {
                out.add(i);
            }
        }
        return out;
    }

    /** How many captures have each verdict. */
    static Map<Severity, Integer> counts(List<Row> rows) {
        Map<Severity, Integer> counts = new EnumMap<>(Severity.class);
        rows.forEach(r -> counts.merge(r.severity(), 1, Integer::sum));
        return counts;
    }

    /** Every regular file under {@code dir} (or {@code dir} itself when it is one), hidden ones left out, by path. */
    static List<Path> captures(Path dir) throws IOException {
        if (Files.isRegularFile(dir)) {
            return List.of(dir);
        }
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).filter(p -> !dir.relativize(p).toString().matches("(.*/)?\\..*")).sorted().toList();
        }
    }

    /** {@code file} judged by {@code plan}; {@code name} is how the row names it. */
    static Row judge(Plan plan, Path file, String name, String hostname) throws IOException {
        Path scratch = Files.createTempDirectory("nhc-backtest");
        try {
            ReplayInputs inputs = new ReplayInputs(scratch);
            Optional<CaptureKind> kind;
            try {
                kind = inputs.recognise(file);
                if (kind.isEmpty()) {
                    CaptureFile.readText(file); // a file that is not text, or too large, is refused with why
                    String head = CaptureFile.head(file, 200).lines().filter(l -> !l.isBlank()).findFirst().orElse("");
                    return new Row(name, null, null, head.isEmpty() ? "the capture is empty: nothing to judge"
                            : "not a capture nhc reads (first line: '" + (head.length() > 60 ? head.substring(0, 60) + "…" : head.strip())
                            + "'; nhc reads nvidia-smi, dcgmi diag and health, kernel logs, ibstat and fabric manager logs)", List.of());
                }
                inputs.add(kind.get(), file, name);
            } catch (CaptureFile.Refused | ReplayInputs.Mismatch e) {
                return new Row(name, null, null, e.getMessage(), List.of());
            }
            return new Row(name, kind.get(), Replay.judge(plan, inputs, hostname, scratch), null, inputs.notes());
        } finally {
            Replay.deleteQuietly(scratch);
        }
    }
}
