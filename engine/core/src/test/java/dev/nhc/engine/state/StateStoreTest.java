package dev.nhc.engine.state;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class StateStoreTest {
    @TempDir
    Path dir;

    @Test
    void valuesSurviveAReload() throws Exception {
        StateStore s = new StateStore(dir);
        s.section("check.gpu-ecc").put("sbe.0", 42L);
        s.section("check.gpu-ecc").put("latched", List.of(Map.of("xid", 79L, "gpu", 3L)));
        s.flush();
        StateStore again = new StateStore(dir);
        assertEquals(42L, again.section("check.gpu-ecc").getLong("sbe.0", -1));
        assertEquals(List.of(Map.of("xid", 79L, "gpu", 3L)), again.section("check.gpu-ecc").get("latched"));
        assertTrue(again.warnings().isEmpty());
    }

    /**
     * The daemon closes its store before it gives up the run lock: a probe abandoned at its limit
     * that returns later changes its section in memory only (the directory may be another nhc's by
     * then, or deleted).
     */
    @Test
    void nothingIsWrittenAfterClose() throws Exception {
        StateStore s = new StateStore(dir);
        s.section("check.gpu").put("latched", true);
        s.flush();
        s.close();
        s.section("check.gpu").put("latched", false);
        s.section("check.new").put("seen", 1L);
        s.flush("check.gpu");
        s.flush();
        s.forget("check.gpu");
        assertEquals(true, new StateStore(dir).section("check.gpu").get("latched"));
        assertTrue(Files.notExists(dir.resolve("check.new.json")));
    }

    @Test
    void everyKindOfValueKeepsItsTypeThroughAFile() throws Exception {
        StateStore s = new StateStore(dir);
        StateSection sec = s.section("kinds");
        sec.put("long", 9_000_000_000L);
        sec.put("double", 0.25);
        sec.put("text", "hello: world");
        sec.put("numeric text", "0042");
        sec.put("yes text", "yes");
        sec.put("flag", true);
        sec.put("nothing", null);
        sec.put("nested", Map.of("list", List.of(1L, "two", List.of(3.5))));
        s.flush();
        StateSection again = new StateStore(dir).section("kinds");
        assertEquals(9_000_000_000L, again.get("long"));
        assertEquals(0.25, again.get("double"));
        assertEquals("hello: world", again.get("text"));
        assertEquals("0042", again.get("numeric text"));
        assertEquals("yes", again.get("yes text"));
        assertEquals(true, again.get("flag"));
        assertNull(again.get("nothing"));
        assertEquals(Map.of("list", List.of(1L, "two", List.of(3.5))), again.get("nested"));
        assertTrue(Files.readString(dir.resolve("kinds.json")).startsWith("{\n  \"_generation\" : 0,\n  \"long\" : 9000000000,\n"),
                "one key a line, the generation first");
        assertEquals("rw-------", java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("kinds.json"))));
    }

    @Test
    void yamlFilesOfNhc010AreReadAndReplacedByJsonWhenTheyChange() throws Exception {
        Files.writeString(dir.resolve("check.gpu-ecc.yaml"), "sbe.0: 42\nlatched:\n- {xid: 79, gpu: 3}\nseen: 2026-11-22T04:00:00Z\n");
        StateStore store = new StateStore(dir);
        StateSection s = store.section("check.gpu-ecc");
        assertEquals(42L, s.getLong("sbe.0", -1));
        assertEquals(List.of(Map.of("xid", 79L, "gpu", 3L)), s.get("latched"));
        assertEquals("2026-11-22T04:00:00Z", s.get("seen"));
        store.flush();
        assertTrue(Files.exists(dir.resolve("check.gpu-ecc.yaml")), "unchanged: left as it is");
        s.put("sbe.0", 43L);
        store.flush();
        assertTrue(Files.notExists(dir.resolve("check.gpu-ecc.yaml")), "replaced");
        StateSection again = new StateStore(dir).section("check.gpu-ecc");
        assertEquals(43L, again.getLong("sbe.0", -1));
        assertEquals(List.of(Map.of("xid", 79L, "gpu", 3L)), again.get("latched"));
    }

    @Test
    void aFileWithADuplicateKeyIsCorruptAndTheWarningSaysWhere() throws Exception {
        Files.writeString(dir.resolve("check.x.json"), "{\n  \"a\" : 1,\n  \"a\" : 2\n}\n");
        StateStore s = new StateStore(dir);
        assertNull(s.section("check.x").get("a"));
        assertTrue(s.warnings().get(0).contains("could not read check.x.json (3:"), s.warnings().get(0));
        assertTrue(s.warnings().get(0).contains("Duplicate field 'a'"), s.warnings().get(0));
        Files.writeString(dir.resolve("check.y.yaml"), "a: 1\na: 2\n");
        s.section("check.y");
        assertTrue(s.warnings().get(1).contains("check.y.yaml:2:1: duplicate key 'a'"), s.warnings().get(1));
    }

    @Test
    void whatIsNotOneJsonObjectIsCorrupt() throws Exception {
        Files.writeString(dir.resolve("a.json"), "[1, 2]\n");
        Files.writeString(dir.resolve("b.json"), "{\"k\": 1} {\"k\": 2}\n");
        Files.writeString(dir.resolve("c.json"), "{\"k\": 123456789012345678901234567890}\n");
        Files.writeString(dir.resolve("d.json"), "{\"k\": [1, \n");
        StateStore s = new StateStore(dir);
        for (String n : List.of("a", "b", "c", "d")) {
            assertEquals(List.of(StateSection.LOST_KEY), List.copyOf(s.section(n).snapshot().keySet()), n);
        }
        assertEquals(4, s.warnings().size(), s.warnings().toString());
        assertTrue(s.warnings().get(0).contains("1:1: not a JSON object"), s.warnings().get(0));
        assertTrue(s.warnings().get(1).contains("1:10: text after the object"), s.warnings().get(1));
        assertTrue(s.warnings().get(2).contains("1:7: number too large"), s.warnings().get(2));
        assertTrue(s.warnings().get(3).contains("could not read d.json (2:"), s.warnings().get(3));
    }

    @Test
    void aSectionAskedForByManyThreadsAtOnceIsReadOnce() throws Exception {
        Files.writeString(dir.resolve("check.x.json"), "{ broken\n");
        StateStore s = new StateStore(dir);
        java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(8);
        try {
            List<java.util.concurrent.Future<StateSection>> got = new java.util.ArrayList<>();
            for (int i = 0; i < 8; i++) {
                got.add(pool.submit(() -> {
                    go.await();
                    return s.section("check.x");
                }));
            }
            go.countDown();
            StateSection first = got.get(0).get();
            for (java.util.concurrent.Future<StateSection> f : got) {
                assertTrue(first == f.get(), "one section object for all");
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(1, s.warnings().size(), "read, found corrupt and moved aside once: " + s.warnings());
    }

    @Test
    void oneSectionCanBeWrittenAheadAndItsFailureIsReportedByTheNextFlush() throws Exception {
        StateStore s = new StateStore(dir);
        s.section("check.a").put("k", 1L);
        s.section("check.b").put("k", 2L);
        s.flush("check.a");
        assertTrue(Files.exists(dir.resolve("check.a.json")));
        assertTrue(Files.notExists(dir.resolve("check.b.json")), "only the section asked for");
        s.flush("never-read");
        s.flush();
        assertEquals(2L, new StateStore(dir).section("check.b").getLong("k", -1));

        Path blocker = dir.resolve("blocker");
        Files.writeString(blocker, "a file where the state directory should be");
        StateStore broken = new StateStore(blocker.resolve("state"));
        broken.section("check.a").put("k", 1L);
        broken.flush("check.a");
        java.io.IOException e = assertThrows(java.io.IOException.class, broken::flush);
        assertTrue(e.getMessage().contains("blocker"), e.getMessage());
        assertThrows(java.io.IOException.class, broken::flush, "still unwritten: the next flush tries again");
    }

    @Test
    void aCheckSavingItsSectionNeverWaitsForSomeoneHoldingTheWholeStore() throws Exception {
        // The daemon once wrote its verdict while synchronized on the store; a check saving its own
        // section then held the section and waited for the store: a deadlock that hung every check.
        StateStore s = new StateStore(dir);
        s.section("check.ib").put("link_downed", 3L);
        java.util.concurrent.CountDownLatch saved = new java.util.concurrent.CountDownLatch(1);
        synchronized (s) {
            Thread check = new Thread(() -> {
                s.flush("check.ib");
                saved.countDown();
            });
            check.start();
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(() -> saved.getCount() == 0);
        }
        assertEquals(3L, new StateStore(dir).section("check.ib").getLong("link_downed", -1));
    }

    @Test
    void aForgottenSectionHasNoFileLeftButStaysInMemoryToBeWrittenAgain() throws Exception {
        StateStore s = new StateStore(dir);
        s.section("slurm").put("owned_reason", "NHC: a: b");
        s.flush();
        s.section("slurm").put("owned_reason", "NHC: a: c");
        s.flush();
        assertTrue(Files.exists(dir.resolve("slurm.json")) && Files.exists(dir.resolve("slurm.json.prev")));

        s.forget("slurm");
        assertTrue(Files.notExists(dir.resolve("slurm.json")) && Files.notExists(dir.resolve("slurm.json.prev")), "every generation");
        assertNull(new StateStore(dir).section("slurm").get("owned_reason"), "another process finds no record at all");
        assertEquals("NHC: a: c", s.section("slurm").get("owned_reason"));
        s.flush();
        assertEquals("NHC: a: c", new StateStore(dir).section("slurm").get("owned_reason"), "written again once the disk takes it");
    }

    @Test
    void aCorruptFileIsMovedAsideWithAWarningWhenTheSectionIsNextSaved() throws Exception {
        Files.writeString(dir.resolve("check.x.json"), "{ \"this is\": [not closed\n");
        StateStore s = new StateStore(dir);
        assertNull(s.section("check.x").get("anything"));
        assertEquals(1, s.warnings().size());
        assertTrue(s.warnings().get(0).contains("could not read check.x.json (1:"), s.warnings().get(0));
        s.section("check.x").put("fresh", true);
        s.flush();
        try (var files = Files.list(dir)) {
            assertTrue(files.anyMatch(p -> p.getFileName().toString().startsWith("check.x.json.corrupt-")));
        }
        assertTrue(s.warnings().get(1).contains("moved the unreadable state file " + dir.resolve("check.x.json") + " aside"), s.warnings().toString());
        assertEquals(true, new StateStore(dir).section("check.x").get("fresh"));
    }

    @Test
    void aFileThatIsNotAMapIsCorruptToo() throws Exception {
        Files.writeString(dir.resolve("slurm.json"), "[\"a\", \"list\"]\n");
        StateStore s = new StateStore(dir);
        assertNull(s.section("slurm").get("a"));
        assertEquals(1, s.warnings().size());
    }

    @Test
    void writesLeaveNoTemporaryFilesAndUnchangedSectionsAreNotRewritten() throws Exception {
        StateStore s = new StateStore(dir);
        s.section("a").put("k", "v");
        s.flush();
        long modified = Files.getLastModifiedTime(dir.resolve("a.json")).toMillis();
        Files.setLastModifiedTime(dir.resolve("a.json"), java.nio.file.attribute.FileTime.fromMillis(modified - 10_000));
        s.section("a").put("k", "v");
        s.flush();
        assertEquals(modified - 10_000, Files.getLastModifiedTime(dir.resolve("a.json")).toMillis(), "an unchanged section is not written");
        try (var files = Files.list(dir)) {
            assertEquals(List.of("a.json", "a.json.prev", "generations.journal"), files.map(p -> p.getFileName().toString()).sorted().toList());
        }
    }

    @Test
    void aWriteThatCannotHappenSaysWhereAndKeepsTheOldFile() throws Exception {
        StateStore s = new StateStore(dir);
        s.section("a").put("k", 1L);
        s.flush();
        Path blocker = dir.resolve("sub");
        Files.writeString(blocker, "a file where a directory should be");
        StateStore elsewhere = new StateStore(blocker.resolve("state"));
        elsewhere.section("a").put("k", 2L);
        Exception e = assertThrows(java.io.IOException.class, elsewhere::flush);
        assertTrue(e.getMessage().contains("sub"), e.getMessage());
        assertEquals(1L, new StateStore(dir).section("a").getLong("k", -1));
    }

    private static final List<Object> LATCH = List.of(Map.of("xid", 79L, "gpu", 3L));

    private void latchAndSave() throws Exception {
        StateStore s = new StateStore(dir);
        s.section("check.xid").put("latched", LATCH);
        s.flush();
    }

    @Test
    void everyWriteKeepsTwoCopiesOfTheNewestGenerationAndTheJournalNumbersIt() throws Exception {
        latchAndSave();
        assertEquals(Files.readString(dir.resolve("check.xid.json")), Files.readString(dir.resolve("check.xid.json.prev")),
                "one damaged file never loses it");
        StateStore s = new StateStore(dir);
        s.section("check.xid").put("cursor", 2L);
        s.flush();
        Map<String, Object> newest = Map.of("_generation", 1L, "latched", LATCH, "cursor", 2L);
        assertEquals(newest, StateFile.parse(Files.readString(dir.resolve("check.xid.json"))));
        assertEquals(newest, StateFile.parse(Files.readString(dir.resolve("check.xid.json.prev"))));
        assertEquals(Map.of("check.xid", 1L), StateFile.parse(Files.readString(dir.resolve("generations.journal"))));
    }

    @Test
    void anEmptiedFileIsCorruptAndTheLatchSurvivesFromThePreviousGeneration() throws Exception {
        latchAndSave();
        Files.write(dir.resolve("check.xid.json"), new byte[0]);
        StateStore s = new StateStore(dir);
        StateSection section = s.section("check.xid");
        assertEquals(LATCH, section.get("latched"));
        assertNull(section.lostBecause());
        assertTrue(s.warnings().get(0).contains("check.xid.json (is empty) could not be read; using " + dir.resolve("check.xid.json.prev")),
                s.warnings().toString());
        s.flush();
        assertEquals(LATCH, new StateStore(dir).section("check.xid").get("latched"), "healed: the current generation is whole again");
        try (var files = Files.list(dir)) {
            assertEquals(1, files.filter(p -> p.getFileName().toString().startsWith("check.xid.json.corrupt-")).count(), "the empty one kept aside");
        }
    }

    @Test
    void whenNoGenerationCanBeReadTheSectionIsLostAndSaysSoUntilCleared() throws Exception {
        latchAndSave();
        Files.write(dir.resolve("check.xid.json"), new byte[0]);
        Files.writeString(dir.resolve("check.xid.json.prev"), "{ \"latched\": [");
        StateStore s = new StateStore(dir);
        StateSection section = s.section("check.xid");
        assertNull(section.get("latched"));
        String why = section.lostBecause();
        assertTrue(why.startsWith("could not read check.xid.json (is empty) or check.xid.json.prev (1:"), why);
        s.flush();
        StateSection again = new StateStore(dir).section("check.xid");
        assertEquals(why, again.lostBecause(), "kept run after run");
        again.clear();
        assertNull(again.lostBecause(), "until nhc clear");
    }

    @Test
    void nothingInTheDirectoryIsFollowedThroughALink() throws Exception {
        Path outside = Files.writeString(dir.resolve("outside.txt"), "{\"k\": \"not nhc's\"}\n");
        Path link = Files.createSymbolicLink(dir.resolve("check.x.json"), outside);
        StateStore s = new StateStore(dir);
        assertNull(s.section("check.x").get("k"), "not read through the link");
        assertTrue(s.warnings().get(0).contains("check.x.json (is a symbolic link, not a regular file)"), s.warnings().toString());
        s.section("check.x").put("k", "nhc's");
        s.flush();
        assertEquals("{\"k\": \"not nhc's\"}\n", Files.readString(outside), "not written through the link either");
        assertTrue(!Files.isSymbolicLink(link));
    }

    @Test
    void asRootAStateDirectoryAnotherUserCanChangeIsNeitherReadNorWritten() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(dev.nhc.engine.config.Ownership.runningAsRoot(),
                "the root-only rules are about directories other users own: only root can make them (CI runs as root)");
        latchAndSave();
        Files.setAttribute(dir, "unix:uid", 65534);
        StateStore s = new StateStore(dir, true);
        StateSection section = s.section("check.xid");
        assertNull(section.get("latched"), "whoever owns the directory could have forged it");
        assertEquals("state directory " + dir + " is not used: directory " + dir.toRealPath() + " is owned by uid 65534, not root",
                section.lostBecause());
        java.io.IOException e = assertThrows(java.io.IOException.class, s::flush);
        assertTrue(e.getMessage().contains("is owned by uid 65534, not root"), e.getMessage());

        Files.setAttribute(dir, "unix:uid", 0);
        Files.setAttribute(dir, "unix:mode", 01777);
        java.io.IOException sticky = assertThrows(java.io.IOException.class, () -> new StateStore(dir, true).checkDirectory());
        assertEquals("directory " + dir.toRealPath() + " is writable by every user (mode 1777)", sticky.getMessage(),
                "sticky is not enough: anyone could add a slurm.json");
    }
}
