package dev.nhc.cli;

import com.fasterxml.jackson.jr.ob.JSON;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code nhc backtest} on what a site's incident directory holds besides captures, its labels and
 * exit codes; the corpus itself is {@link CorpusIT}.
 */
class BacktestIT {
    @TempDir
    Path dir;
    private Path config;
    private Path captures;

    @BeforeEach
    void incidents() throws Exception {
        config = dir.resolve("nhc.yaml");
        Files.writeString(config, "nhc: 1\nchecks:\n  - { name: gpus, use: gpu.inventory, with: { count: 1 } }\n");
        captures = Files.createDirectories(dir.resolve("incidents"));
        Files.createDirectories(captures.resolve("2024/node-7"));
        Files.writeString(captures.resolve("2024/node-7/smi.txt"), "No devices were found\n");
        Files.writeString(captures.resolve("empty.txt"), "");
        Files.writeString(captures.resolve("notes.txt"), "node-7 rebooted by hand\n");
        Files.write(captures.resolve("dmesg.gz"), new byte[] {0x1f, (byte) 0x8b, 8, 0, 0, 0, 0, 0});
        Files.writeString(captures.resolve(".nhc-seen"), "not a capture: hidden files are skipped\n");
    }

    @Test
    void everyFileIsARowAndWhatIsNoCaptureIsUnknownWithWhy() throws Exception {
        NhcProcess.Result r = NhcProcess.run(dir, Map.of(), "backtest", "-c", config.toString(), captures.toString());
        assertEquals(0, r.exit(), r.out() + r.err());
        List<String> rows = r.out().lines().toList();
        assertTrue(rows.get(0).matches("CAPTURE\\s+KIND\\s+VERDICT\\s+FINDINGS"), r.out());
        assertTrue(rows.get(1).matches("2024/node-7/smi\\.txt\\s+nvidia-smi\\s+FAIL\\s+gpus: only 0 of the 1 GPUs found.*"), rows.get(1));
        assertTrue(rows.get(2).matches("dmesg\\.gz\\s+\\?\\s+UNKNOWN\\s+.*dmesg\\.gz is not text \\(binary data at byte 0\\)"), rows.get(2));
        assertTrue(rows.get(3).matches("empty\\.txt\\s+\\?\\s+UNKNOWN\\s+the capture is empty: nothing to judge"), rows.get(3));
        assertTrue(rows.get(4).matches("notes\\.txt\\s+\\?\\s+UNKNOWN\\s+not a capture nhc reads \\(first line: 'node-7 rebooted by hand'.*"), rows.get(4));
        assertEquals("backtest: 4 captures: 1 fail, 0 warn, 3 unknown, 0 pass", rows.get(5));
        assertEquals(6, rows.size(), r.out());
    }

    @Test
    void labelsAreCheckedAndAMismatchOrAMissingLabelExitsOne() throws Exception {
        Path labels = dir.resolve("labels.txt");
        Files.writeString(labels, "# capture | verdict | message | why\n"
                + "2024/node-7/smi.txt | fail | only 0 of the 1 GPUs | nvidia-smi found no GPU\n"
                + "empty.txt | unknown | - | nothing to judge\n"
                + "notes.txt | unknown | - | not a capture\n"
                + "dmesg.gz | unknown | not text | compressed\n");
        NhcProcess.Result ok = NhcProcess.run(dir, Map.of(), "backtest", "-c", config.toString(), "--labels", labels.toString(), captures.toString());
        assertEquals(0, ok.exit(), ok.out() + ok.err());
        assertTrue(ok.out().contains("every capture judged as labelled"), ok.out());

        Files.writeString(labels, Files.readString(labels).replace("notes.txt | unknown | - | not a capture\n", "")
                .replace("| fail | only 0", "| pass | only 0"));
        NhcProcess.Result bad = NhcProcess.run(dir, Map.of(), "backtest", "-c", config.toString(), "--labels", labels.toString(), captures.toString());
        assertEquals(1, bad.exit(), bad.out() + bad.err());
        assertTrue(bad.out().contains("label: 2024/node-7/smi.txt is fail, labelled pass"), bad.out());
        assertTrue(bad.out().contains("label: notes.txt has no label"), bad.out());

        Map<String, Object> json = JSON.std.mapFrom(NhcProcess.run(dir, Map.of(), "backtest", "--json", "-c", config.toString(),
                "--labels", labels.toString(), captures.toString()).out());
        Map<?, ?> first = (Map<?, ?>) ((List<?>) json.get("captures")).get(0);
        assertEquals("nvidia-smi", first.get("kind"));
        assertEquals("fail", first.get("severity"));
        assertEquals(false, first.get("matches_label"));
        assertEquals("fail", ((Map<?, ?>) first.get("verdict")).get("severity"));
        assertEquals(2, ((List<?>) ((Map<?, ?>) json.get("summary")).get("label_mismatches")).size(), json.toString());
    }

    @Test
    void invalidLabelsADirectoryThatIsNotThereOrABadConfigJudgeNothing() throws Exception {
        Path labels = dir.resolve("labels.txt");
        Files.writeString(labels, "empty.txt | maybe | - | ?\n");
        NhcProcess.Result r = NhcProcess.run(dir, Map.of(), "backtest", "-c", config.toString(), "--labels", labels.toString(), captures.toString());
        assertEquals(2, r.exit(), r.out() + r.err());
        assertEquals("", r.out());
        assertTrue(r.err().contains(labels + ":1:"), r.err());

        NhcProcess.Result none = NhcProcess.run(dir, Map.of(), "backtest", "-c", config.toString(), dir.resolve("nope").toString());
        assertEquals(2, none.exit(), none.out() + none.err());
        assertTrue(none.err().contains("no such file or directory; nothing was done"), none.err());

        Files.writeString(config, "nhc: 1\nchecks:\n  - { name: gpus, use: gpu.inventroy }\n");
        assertEquals(2, NhcProcess.run(dir, Map.of(), "backtest", "-c", config.toString(), captures.toString()).exit());
    }

    @Test
    void aReplayCaptureGivenToAnotherToolsOptionIsRefused() throws Exception {
        NhcProcess.Result r = NhcProcess.run(dir, Map.of(), "replay", "-c", config.toString(), "--kernel-log",
                captures.resolve("2024/node-7/smi.txt").toString());
        assertEquals(2, r.exit(), r.out() + r.err());
        assertTrue(r.err().contains("is a capture of nvidia-smi, given as one of kernel log"), r.err());
    }
}
