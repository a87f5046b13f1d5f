package dev.nhc.slurm;

import dev.nhc.engine.state.StateStore;
import dev.nhc.model.Severity;
import dev.nhc.model.Verdict;
import dev.nhc.slurm.history.History;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The node's history: transitions only, bounded, written as state files are, every entry checked when read back. */
class HistoryTest {
    @TempDir
    Path tmp;
    Instant t = Instant.parse("2026-11-22T04:00:00Z");

    @Test
    void theSlurmActionRecordsAVerdictOnlyWhenItChangesAndReadsNoHistoryOtherwise() throws IOException {
        FakeSlurm slurm = new FakeSlurm(tmp.resolve("slurm"));
        slurm.node("gpu-001", "IDLE", null);
        Map<String, Object> section = new LinkedHashMap<>(Map.of("scontrol", slurm.scontrol.toString(), "sinfo", slurm.sinfo.toString()));
        Path state = tmp.resolve("state");
        List<Verdict> runs = List.of(SlurmActionTest.passing(), SlurmActionTest.passing(),
                SlurmActionTest.verdict(SlurmActionTest.fail("root-fs", "used 97% of /")),
                SlurmActionTest.verdict(SlurmActionTest.fail("root-fs", "used 98% of /")));
        Instant at = t;
        for (Verdict v : runs) {
            StateStore store = new StateStore(state, false);
            new SlurmAction(Map.of(), Clock.fixed(at, ZoneOffset.UTC), Duration.ofMillis(10))
                    .apply(v, SlurmActionTest.plan(section), store, "gpu-001", at.plusSeconds(40));
            store.flush();
            at = at.plusSeconds(300);
        }
        List<History.Entry> read = History.read(new StateStore(state, false).section(History.SECTION)).entries();
        assertEquals(List.of(new History.Entry(t, History.Event.VERDICT, Severity.PASS, "every check passed"),
                new History.Entry(t.plusSeconds(600), History.Event.VERDICT, Severity.FAIL, "NHC: root-fs: used 97% of /"),
                new History.Entry(t.plusSeconds(600), History.Event.DRAIN, null, "NHC: root-fs: used 97% of /"),
                new History.Entry(t.plusSeconds(900), History.Event.UPDATE_REASON, null, "NHC: root-fs: used 98% of /")), read);

        Files.writeString(state.resolve("history.json"), "not json, and no run that changes nothing reads it");
        Files.deleteIfExists(state.resolve("history.json.prev"));
        StateStore store = new StateStore(state, false);
        new SlurmAction(Map.of(), Clock.fixed(at, ZoneOffset.UTC), Duration.ofMillis(10))
                .apply(runs.get(3), SlurmActionTest.plan(section), store, "gpu-001", at.plusSeconds(40));
        assertEquals(List.of(), store.warnings(), "the history was never loaded");
    }

    @Test
    void itKeepsTheLastEntriesOnly() throws IOException {
        StateStore store = new StateStore(tmp, false);
        History h = new History(store.section(History.SECTION));
        for (int i = 0; i < History.MAX_ENTRIES + 20; i++) {
            h.add(History.Event.DRAIN, "drain " + i, t.plusSeconds(i));
        }
        store.flush();
        List<History.Entry> read = History.read(new StateStore(tmp, false).section(History.SECTION)).entries();
        assertEquals(History.MAX_ENTRIES, read.size());
        assertEquals("drain 20", read.get(0).detail(), "the oldest go first");
        assertTrue(Files.size(tmp.resolve("history.json")) < 200_000, "bounded on disk too");
    }

    @Test
    void aDamagedEntryIsSkippedAndCountedNeverShown() throws IOException {
        StateStore store = new StateStore(tmp, false);
        History h = new History(store.section(History.SECTION));
        h.add(History.Event.RESUME, "after 1 passing run(s)", t);
        h.add(History.Event.DRAIN, "NHC: x: y", t.plusSeconds(1));
        store.flush();
        Path file = tmp.resolve("history.json");
        Files.writeString(file, Files.readString(file).replace("\"resume\"", "\"reboot_the_world\"").replace("\"drain\"", "\"fail\""));
        Files.deleteIfExists(tmp.resolve("history.json.prev"));

        History.Read read = History.read(new StateStore(tmp, false).section(History.SECTION));
        assertEquals(1, read.damaged());
        assertEquals(List.of(new History.Entry(t.plusSeconds(1), History.Event.FAIL, null, "NHC: x: y")), read.entries(),
                "an entry that reads well is shown as read: the state rules decide who could write it");
    }

    @Test
    void aLongDetailIsCut() throws IOException {
        StateStore store = new StateStore(tmp, false);
        new History(store.section(History.SECTION)).add(History.Event.DRAIN, "x".repeat(5000), t);
        store.flush();
        History.Entry e = History.read(new StateStore(tmp, false).section(History.SECTION)).entries().get(0);
        assertEquals(1000, e.detail().length());
        assertTrue(e.detail().endsWith("..."));
    }
}
