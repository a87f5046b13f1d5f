package dev.nhc.engine.state;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 17 item 3: a latch written to state is never lost to damage without the loss being said.
 * A section first saved without a latch (the cursor before the fault) and then with one: whatever
 * is done to its files afterwards — truncation at every offset of every file, a write stopped at
 * every step, files deleted — the next load gives the latch, or says the section is lost, or (only
 * when the latching write never reached its first rename) the older cursor, from which the source
 * is read again. Never the older generation in silence.
 */
class StateDamageTest {
    private static final String SECTION = "check.xid";
    private static final List<Object> LATCH = List.of(Map.of("xid", 79L, "gpu", 3L));

    @TempDir
    Path dir;

    /** Run 1: the cursor, no latch. Run 2 (through {@code store}): the cursor moved, the latch. */
    private void beforeAndLatching(StateStore latching) throws Exception {
        StateStore before = new StateStore(dir, false);
        before.section(SECTION).put("cursor", 1L);
        before.flush();
        StateSection s = latching.section(SECTION);
        s.put("cursor", 2L);
        s.put("latched", LATCH);
        StateDamage.flushUntilStopped(latching);
    }

    private StateSection reload() {
        return new StateStore(dir, false).section(SECTION);
    }

    @Test
    void truncatingTheCurrentFileOrItsCopyAtAnyOffsetLosesNoLatch() throws Exception {
        beforeAndLatching(new StateStore(dir, false));
        Map<String, byte[]> whole = StateDamage.snapshot(dir);
        for (String file : List.of(SECTION + ".json", SECTION + ".json.prev")) {
            int size = whole.get(file).length;
            for (int offset = 0; offset < size; offset++) {
                cut(file, whole, offset); // a load writes nothing: the other files stay as the write left them
                StateSection s = reload();
                String at = file + " cut to " + offset + " bytes";
                assertEquals(LATCH, s.get("latched"), at);
                assertEquals(2L, s.get("cursor"), at);
                assertNull(s.lostBecause(), at);
            }
            cut(file, whole, size);
        }
    }

    @Test
    void aWriteStoppedAtAnyStepLeavesTheLatchOrNeverBeganAndLeavesTheOlderCursor() throws Exception {
        for (int k = 0; k <= StateDamage.steps(); k++) {
            clean();
            beforeAndLatching(StateDamage.stoppingAt(dir, k));
            StateSection s = reload();
            String at = "stopped before " + StateDamage.step(k);
            assertNull(s.lostBecause(), at);
            if (k == 0) {
                assertEquals(Map.of("cursor", 1L), s.snapshot(), at + ": nothing of the latching write is on disk; from cursor 1 the source is read again");
            } else {
                assertEquals(LATCH, s.get("latched"), at);
            }
        }
    }

    @Test
    void aWriteStoppedAtAnyStepThenAnyFileCutAtAnyOffsetNeverGivesTheOlderGenerationInSilence() throws Exception {
        int withLatch = 0;
        int lost = 0;
        int older = 0;
        for (int k = 0; k <= StateDamage.steps(); k++) {
            clean();
            beforeAndLatching(StateDamage.stoppingAt(dir, k));
            Map<String, byte[]> left = StateDamage.snapshot(dir);
            for (Path f : StateDamage.filesOf(dir, SECTION)) {
                String name = f.getFileName().toString();
                for (int offset = 0; offset < left.get(name).length; offset++) {
                    cut(name, left, offset);
                    StateSection s = reload();
                    String at = "stopped before " + StateDamage.step(k) + ", " + name + " cut to " + offset + " bytes: " + s.snapshot();
                    if (LATCH.equals(s.get("latched"))) {
                        withLatch++;
                    } else if (s.lostBecause() != null) {
                        lost++;
                        assertNull(s.get("cursor"), at + ": a lost section starts afresh, so the source is read from the start of the boot");
                    } else {
                        // the one double fault the journal cannot see: the newest generation renamed into place but not yet
                        // recorded (or never renamed) and then destroyed; its cursor makes the source be read again from there
                        older++;
                        assertEquals(Map.of("cursor", 1L), s.snapshot(), at);
                        assertTrue(k <= StateDamage.stepIndex("RECORD_IN_JOURNAL"), at + ": only before the journal records the generation");
                    }
                }
                cut(name, left, left.get(name).length);
            }
        }
        assertTrue(withLatch > 0 && lost > 0, withLatch + " with the latch, " + lost + " lost, " + older + " with the older cursor");
    }

    @Test
    void aTornTempFileIsNeverReadAsStateAndIsRemovedWhenTheSectionIsNextWritten() throws Exception {
        beforeAndLatching(StateDamage.stoppingAt(dir, 2)); // the temp file whole, not yet renamed
        Path tmp = onlyTemp();
        long size = Files.size(tmp);
        Map<String, byte[]> left = StateDamage.snapshot(dir);
        for (long offset = 0; offset < size; offset++) {
            StateDamage.restore(dir, left);
            StateDamage.truncate(tmp, offset);
            StateSection s = reload();
            boolean whole = offset == size - 1; // only the final newline gone
            assertEquals(whole ? LATCH : null, s.get("latched"), "cut to " + offset);
            assertEquals(whole ? 2L : 1L, s.get("cursor"), "cut to " + offset);
        }
        StateStore next = new StateStore(dir, false);
        next.section(SECTION).put("cursor", 3L);
        next.flush();
        assertEquals(List.of(), temps(), "removed");
    }

    @Test
    void aWholeTempFileNewerThanTheSectionIsRecoveredSaidAndSavedInItsPlace() throws Exception {
        beforeAndLatching(StateDamage.stoppingAt(dir, 2));
        Path tmp = onlyTemp();
        StateStore next = new StateStore(dir, false);
        StateSection s = next.section(SECTION);
        assertEquals(LATCH, s.get("latched"));
        assertTrue(next.warnings().get(0).startsWith("recovered state file " + tmp + " (generation 1)"), next.warnings().toString());
        next.flush();
        assertEquals(List.of(), temps());
        StateStore after = new StateStore(dir, false);
        assertEquals(LATCH, after.section(SECTION).get("latched"));
        assertTrue(after.warnings().isEmpty(), after.warnings().toString());
    }

    @Test
    void bothFilesDeletedAfterALatchingWriteIsLostBecauseTheJournalSaysItWasWritten() throws Exception {
        beforeAndLatching(new StateStore(dir, false));
        Files.delete(dir.resolve(SECTION + ".json"));
        Files.delete(dir.resolve(SECTION + ".json.prev"));
        StateStore s = new StateStore(dir, false);
        assertEquals("its files are missing, but generations.journal says generation 1 was written", s.section(SECTION).lostBecause());
        assertTrue(s.warnings().get(0).startsWith("state of check.xid is lost: its files are missing"), s.warnings().toString());
    }

    @Test
    void anOlderGenerationThanTheJournalRecordsIsLostNotUsed() throws Exception {
        beforeAndLatching(StateDamage.stoppingAt(dir, 5)); // renamed and recorded; the copy still the generation before
        StateDamage.truncate(dir.resolve(SECTION + ".json"), 10);
        StateSection s = reload();
        assertNull(s.get("cursor"));
        assertTrue(s.lostBecause().startsWith("the newest generation that could be read (0, in check.xid.json.prev) is older than generation 1,"
                + " which generations.journal says was written; could not read check.xid.json ("), s.lostBecause());
    }

    @Test
    void withTheJournalGoneTooAMissingSectionIsLostWhileNhcHoldsTheNodeAndNewOtherwise() throws Exception {
        beforeAndLatching(new StateStore(dir, false));
        try (Stream<Path> files = Files.list(dir)) {
            for (Path p : files.toList()) {
                Files.delete(p);
            }
        }
        StateStore held = new StateStore(dir, false);
        held.nodeHeld("nhc's Slurm record says it drained node gpu-001");
        assertEquals("its files are missing while nhc's Slurm record says it drained node gpu-001, and there is no "
                + dir.resolve("generations.journal") + " to tell whether it ever had any", held.section(SECTION).lostBecause());
        assertEquals("nhc's Slurm record says it drained node gpu-001", held.section(SECTION).heldBecause());
        assertNull(new StateStore(dir, false).section(SECTION).lostBecause(), "not held: a section never written (a new check)");
    }

    @Test
    void aDamagedJournalIsSaidAndWrittenAfreshFromTheSections() throws Exception {
        beforeAndLatching(new StateStore(dir, false));
        Files.writeString(dir.resolve("generations.journal"), "{\"check.xid\": \"many\"}\n");
        StateStore s = new StateStore(dir, false);
        assertEquals(LATCH, s.section(SECTION).get("latched"));
        assertTrue(s.warnings().get(0).contains("generations.journal holds 'check.xid': 'many', not what nhc writes; it is written afresh"),
                s.warnings().toString());
        s.flush();
        assertEquals(Map.of("check.xid", 1L), StateFile.parse(Files.readString(dir.resolve("generations.journal"))));
    }

    @Test
    void aForgottenSectionIsNotLostForTheNextRun() throws Exception {
        beforeAndLatching(new StateStore(dir, false));
        StateStore s = new StateStore(dir, false);
        s.section(SECTION);
        s.forget(SECTION);
        StateSection next = reload();
        assertNull(next.lostBecause());
        assertEquals(Map.of(), next.snapshot());
    }

    @Test
    void theNextWriteAfterALossIsNewerThanAnyGenerationKnown() throws Exception {
        beforeAndLatching(new StateStore(dir, false));
        Files.delete(dir.resolve(SECTION + ".json"));
        Files.delete(dir.resolve(SECTION + ".json.prev"));
        StateStore s = new StateStore(dir, false);
        s.section(SECTION);
        s.flush();
        assertEquals(2L, StateFile.parse(Files.readString(dir.resolve(SECTION + ".json"))).get("_generation"));
        StateStore after = new StateStore(dir, false);
        assertNotNull(after.section(SECTION).lostBecause(), "the loss is kept until nhc clear");
        assertTrue(after.warnings().isEmpty(), "and read back from a whole section: said once, not again each run: " + after.warnings());
    }

    /** {@code file} cut to {@code offset} bytes of what {@code files} holds for it, every other file as it is. */
    private void cut(String file, Map<String, byte[]> files, int offset) throws Exception {
        Files.write(dir.resolve(file), java.util.Arrays.copyOf(files.get(file), offset));
    }

    private void clean() throws Exception {
        try (Stream<Path> files = Files.list(dir)) {
            for (Path p : files.toList()) {
                Files.delete(p);
            }
        }
    }

    private List<Path> temps() throws Exception {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.getFileName().toString().endsWith(".tmp")).toList();
        }
    }

    private Path onlyTemp() throws Exception {
        List<Path> t = temps();
        assertEquals(1, t.size(), t.toString());
        return t.get(0);
    }
}
