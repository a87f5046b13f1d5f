package dev.nhc.cli;

import com.fasterxml.jackson.jr.ob.JSON;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The corpus (cli/src/test/corpus: real captures from public sources, each with its source in
 * SOURCES.md and its label in labels.txt) through {@code nhc backtest} as a site would run it:
 * every capture must be judged as its label says. The only exceptions are the captures in
 * pending.txt, whose fix belongs to another branch: each of them must still be judged against its
 * label, so that an entry is removed as soon as it is not needed.
 */
class CorpusIT {
    static final Path CORPUS = Path.of(System.getProperty("nhc.corpus", "src/test/corpus")).toAbsolutePath();
    private static final Path CAPTURES = CORPUS.resolve("captures");

    @TempDir
    Path dir;

    /** The first field of every record line of a ' | '-separated file. */
    private static Map<String, String> records(Path file) throws Exception {
        Map<String, String> out = new LinkedHashMap<>();
        for (String line : Files.readAllLines(file)) {
            if (!line.isBlank() && !line.startsWith("#")) {
                String[] f = line.split(" \\| ", 2);
                out.put(f[0].strip(), f.length > 1 ? f[1] : "");
            }
        }
        return out;
    }

    private static Set<String> captures() throws Exception {
        try (Stream<Path> s = Files.walk(CAPTURES)) {
            return new TreeSet<>(s.filter(Files::isRegularFile).map(p -> CAPTURES.relativize(p).toString()).toList());
        }
    }

    @Test
    void everyCaptureIsJudgedAsItsLabelSaysExceptThePendingOnesWhichStillAreNot() throws Exception {
        NhcProcess.Result r = NhcProcess.run(dir, Map.of(), "backtest", "--json", "-c", CORPUS.resolve("nhc.yaml").toString(),
                "--labels", CORPUS.resolve("labels.txt").toString(), CAPTURES.toString());
        Map<String, Object> out = JSON.std.mapFrom(r.out());
        Map<?, ?> summary = (Map<?, ?>) out.get("summary");
        assertTrue(((Number) summary.get("captures")).intValue() >= 100, "the corpus holds at least 100 captures: " + summary);

        Set<String> against = new TreeSet<>();
        for (Object o : (List<?>) out.get("captures")) {
            Map<?, ?> c = (Map<?, ?>) o;
            if (!Boolean.TRUE.equals(c.get("matches_label"))) {
                against.add((String) c.get("capture"));
            }
        }
        Set<String> pending = new TreeSet<>(records(CORPUS.resolve("pending.txt")).keySet());
        Set<String> wrong = new TreeSet<>(against);
        wrong.removeAll(pending);
        Set<String> fixed = new TreeSet<>(pending);
        fixed.removeAll(against);
        assertEquals(Set.of(), wrong, "judged against their label (the backtest says why):\n" + String.join("\n",
                ((List<?>) summary.get("label_mismatches")).stream().map(Object::toString).toList()));
        assertEquals(Set.of(), fixed, "judged as labelled now: remove them from pending.txt");
        assertEquals(pending.isEmpty() ? 0 : 1, r.exit(), "exit 1 while a capture is not judged as labelled: " + r.err());
    }

    @Test
    void everyCaptureHasItsSourceAndItsLabelAndNothingElseIsListed() throws Exception {
        Set<String> files = captures();
        Map<String, String> sources = new LinkedHashMap<>();
        for (String line : Files.readAllLines(CORPUS.resolve("SOURCES.md"))) {
            // | capture | kind | source |
            String[] f = line.split("\\|");
            if (f.length > 3 && f[1].strip().startsWith("`")) {
                sources.put(f[1].strip().replace("`", ""), f[3].strip());
            }
        }
        assertEquals(files, new TreeSet<>(sources.keySet()), "SOURCES.md lists every capture, and only those");
        sources.forEach((c, s) -> assertTrue(s.matches(".*(https://github\\.com/\\S+|[\\w.-]+/[\\w.-]+ @ [0-9a-f]{8,}).*"),
                c + ": a source is a URL, or repository @ commit : path, not '" + s + "'"));
        assertEquals(files, new TreeSet<>(records(CORPUS.resolve("labels.txt")).keySet()), "labels.txt labels every capture, and only those");
        assertTrue(files.containsAll(records(CORPUS.resolve("pending.txt")).keySet()), "pending.txt names captures of the corpus");
    }

    @Test
    void againstAnotherConfigOnlyTheCapturesWhoseVerdictChangesAreShown() throws Exception {
        // A site stops warning about clock slowdowns: which recorded captures would it have judged differently?
        Path laxer = dir.resolve("laxer.yaml");
        Files.writeString(laxer, Files.readString(CORPUS.resolve("nhc.yaml")).replace("{ name: gpu-thermal, use: gpu.thermal }",
                "{ name: gpu-thermal, use: gpu.thermal, warn: none }"));
        NhcProcess.Result r = NhcProcess.run(dir, Map.of(), "backtest", "-c", laxer.toString(), "--against",
                CORPUS.resolve("nhc.yaml").toString(), CAPTURES.toString());
        assertEquals(0, r.exit(), r.out() + r.err());
        List<String> rows = new ArrayList<>(r.out().lines().toList());
        assertTrue(rows.get(0).startsWith("CAPTURE") && rows.get(0).contains("BEFORE") && rows.get(0).contains("AFTER"), r.out());
        assertEquals(4, rows.size(), "the header, the two captures of GPUs under the HW power brake, the summary: " + r.out());
        assertTrue(rows.get(1).matches("nvidia-smi-q/gpud-535\\.161\\.08-h100x8\\.txt\\s+nvidia-smi\\s+WARN\\s+PASS\\s+-"), rows.get(1));
        assertTrue(rows.get(2).matches("nvidia-smi-q/gpud-535\\.183\\.01-valid\\.txt\\s+nvidia-smi\\s+WARN\\s+PASS\\s+-"), rows.get(2));
        assertTrue(rows.get(3).endsWith("; 2 changed verdict"), rows.get(3));
    }
}
