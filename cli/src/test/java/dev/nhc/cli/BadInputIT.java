package dev.nhc.cli;

import com.fasterxml.jackson.jr.ob.JSON;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every bad config gives file:line:column, exit 2, no stack trace, and no action (no state written). */
class BadInputIT {
    @TempDir
    Path dir;

    private NhcProcess.Result run(String yaml, String... extra) throws Exception {
        Path f = dir.resolve("nhc.yaml");
        Files.writeString(f, yaml);
        String[] args = new String[extra.length + 3];
        args[0] = "run";
        args[1] = "-c";
        args[2] = f.toString();
        System.arraycopy(extra, 0, args, 3, extra.length);
        return NhcProcess.run(dir, NhcProcess.withTestProbes(), args);
    }

    private void assertInvalid(NhcProcess.Result r, String where) {
        assertEquals(2, r.exit(), r.out() + r.err());
        assertTrue(r.err().contains(dir.resolve("nhc.yaml") + where), "expected '" + where + "' in: " + r.err());
        assertTrue(r.err().contains("nothing was done"), r.err());
        assertFalse(r.err().contains("\tat "), "no stack trace: " + r.err());
        assertEquals("", r.out());
        assertFalse(Files.exists(dir.resolve("state")), "no state written for an invalid config");
    }

    private static final String HEAD = "nhc: 1\nsettings: { state_dir: STATE }\nchecks:\n";

    private String cfg(String checks) {
        return HEAD.replace("STATE", dir.resolve("state").toString()) + checks;
    }

    @Test
    void malformedYaml() throws Exception {
        assertInvalid(run(cfg("  - name: x\n    use: [test.wait\n")), ":5:10: YAML syntax error: the '[' opened at 5:10 is not closed (the file ends before it is)");
    }

    @Test
    void wrongTypeUnknownKeyUnknownProbeDuplicateName() throws Exception {
        NhcProcess.Result r = run(cfg("  - { name: a, use: test.wait, with: { value: many } }\n"
                + "  - { name: b, use: test.wiat }\n"
                + "  - { name: c, use: test.wait, timout: 5s }\n"
                + "  - { name: a, use: test.wait }\n"));
        assertInvalid(r, ":4:");
        assertTrue(r.err().contains(":4:47: 'value' in check 'a' (test.wait) with: must be a whole number"), r.err());
        assertTrue(r.err().contains(":5:21: check 'b': unknown probe 'test.wiat' (did you mean 'test.wait'?)"), r.err());
        assertTrue(r.err().contains(":6:32: unknown key 'timout' in a check (did you mean 'timeout'?)"), r.err());
        assertTrue(r.err().contains(":7:13: duplicate check name 'a' (first at line 4)"), r.err());
    }

    @Test
    void malformedThresholds() throws Exception {
        NhcProcess.Result r = run(cfg("  - { name: a, use: test.wait, fail: { value: \">> 5\" } }\n"
                + "  - { name: b, use: test.wait, fail: { value: \"> 5 GB/s\" } }\n"));
        assertInvalid(r, ":4:");
        assertTrue(r.err().contains(":5:"), r.err());
    }

    @Test
    void emptyMissingAndHugeFiles() throws Exception {
        assertInvalid(run(""), ":1:1: the file is empty");
        NhcProcess.Result missing = NhcProcess.run(dir, Map.of(), "run", "-c", dir.resolve("nope.yaml").toString());
        assertEquals(2, missing.exit());
        assertTrue(missing.err().contains("nope.yaml: no such file"), missing.err());
        Path big = dir.resolve("nhc.yaml");
        Files.write(big, "#".repeat(10 * 1024 * 1024).getBytes());
        NhcProcess.Result huge = NhcProcess.run(dir, Map.of(), "run", "-c", big.toString());
        assertEquals(2, huge.exit());
        assertTrue(huge.err().contains("10485760 bytes"), huge.err());
    }

    @Test
    void aValueThatContainsItselfIsAConfigErrorNotAStackOverflow() throws Exception {
        NhcProcess.Result r = run(cfg("  - { name: a, use: test.wait }\n").replace("settings: {", "settings: &s { loop: *s,"));
        assertInvalid(r, ":2:11: alias *s is used inside its own anchor &s");
    }

    @Test
    void aBillionLaughsIsAConfigErrorWithinTimeAndMemory() throws Exception {
        StringBuilder y = new StringBuilder(cfg("  - { name: a, use: test.wait, with: { value: 1 } }\n")).append("l0: &l0 [x, x]\n");
        for (int i = 1; i <= 40; i++) {
            y.append("l").append(i).append(": &l").append(i).append(" [*l").append(i - 1).append(", *l").append(i - 1).append("]\n");
        }
        NhcProcess.Result r = run(y.toString());
        assertInvalid(r, ":");
        assertTrue(r.err().contains("expands to more than 100000 values through its aliases"), r.err());
    }

    @Test
    void aConfigWithManyAliasesLoads() throws Exception {
        StringBuilder y = new StringBuilder(cfg("  - { name: a0, use: test.wait, on: &h [\"*\"] }\n"));
        for (int i = 1; i <= 60; i++) {
            y.append("  - { name: a").append(i).append(", use: test.wait, on: *h }\n");
        }
        Path f = dir.resolve("nhc.yaml");
        Files.writeString(f, y.toString());
        NhcProcess.Result r = NhcProcess.run(dir, NhcProcess.withTestProbes(), "check-config", "-c", f.toString());
        assertEquals(0, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains("valid, 61 checks"), r.out());
    }

    @Test
    void onlyRegularFilesAreReadAsConfigs() throws Exception {
        Path fifo = dir.resolve("fifo.yaml");
        assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor());
        Path zero = Files.createSymbolicLink(dir.resolve("zero.yaml"), Path.of("/dev/zero"));
        NhcProcess.Result f = NhcProcess.run(dir, Map.of(), "run", "-c", fifo.toString());
        assertEquals(2, f.exit(), f.err());
        assertTrue(f.err().contains(fifo + ": is a FIFO, not a regular file"), f.err());
        NhcProcess.Result z = NhcProcess.run(dir, Map.of(), "run", "-c", zero.toString());
        assertEquals(2, z.exit(), z.err());
        assertTrue(z.err().contains(zero + ": is a character device (/dev/zero), not a regular file"), z.err());
        NhcProcess.Result d = NhcProcess.run(dir, Map.of(), "check-config", "-c", dir.toString());
        assertEquals(2, d.exit(), d.err());
        assertTrue(d.err().contains(dir + ": is a directory, not a config file"), d.err());
        for (NhcProcess.Result r : List.of(f, z, d)) {
            assertFalse(r.err().contains("\tat ") || r.err().contains("Error"), "no stack trace: " + r.err());
        }
    }

    @Test
    void asRootAConfigOthersCanWriteIsRefused() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(dev.nhc.engine.config.Ownership.runningAsRoot(), "ownership rules apply when nhc runs as root");
        Path f = dir.resolve("nhc.yaml");
        Files.writeString(f, cfg("  - { name: a, use: test.wait }\n"));
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-rw-rw-"));
        NhcProcess.Result r = NhcProcess.run(dir, NhcProcess.withTestProbes(), "run", "-c", f.toString());
        assertEquals(2, r.exit());
        assertTrue(r.err().contains("writable by every user"), r.err());
        assertTrue(r.err().contains("only reads configs that only root can change"), r.err());
    }

    @Test
    void checkConfigReportsValidAndInvalid() throws Exception {
        Path f = dir.resolve("nhc.yaml");
        Files.writeString(f, cfg("  - { name: a, use: test.wait }\n"));
        NhcProcess.Result ok = NhcProcess.run(dir, NhcProcess.withTestProbes(), "check-config", "-c", f.toString());
        assertEquals(0, ok.exit(), ok.err());
        assertTrue(ok.out().contains("valid, 1 check\n"), ok.out());
        Files.writeString(f, cfg("  - { name: a, use: nope }\n"));
        NhcProcess.Result bad = NhcProcess.run(dir, NhcProcess.withTestProbes(), "check-config", "-c", f.toString());
        assertEquals(2, bad.exit());
    }

    @Test
    void unknownOptionsAreUsageErrors() throws Exception {
        NhcProcess.Result r = NhcProcess.run(dir, Map.of(), "run", "--verbos");
        assertEquals(2, r.exit());
        assertTrue(r.err().contains("--verbos"), r.err());
        assertTrue(r.err().contains("--verbose"), "suggests the right option: " + r.err());
    }

    @Test
    void noCommandPrintsTheHelpOnStderrAndExitsTwo() throws Exception {
        NhcProcess.Result r = NhcProcess.run(dir, Map.of());
        assertEquals(2, r.exit(), r.out() + r.err());
        assertEquals("", r.out());
        assertTrue(r.err().startsWith("Usage: nhc [-hV] COMMAND"), r.err());
        assertTrue(r.err().contains("  replay ") && r.err().contains("Exit codes:"), r.err());
    }

    /** The one JSON object of a --json command that ended without a verdict. */
    private static Map<String, Object> jsonError(NhcProcess.Result r, int exit) throws Exception {
        assertEquals(exit, r.exit(), r.out() + r.err());
        assertEquals(1, r.out().strip().lines().count(), "one line, one object: " + r.out());
        Map<String, Object> m = JSON.std.mapFrom(r.out());
        assertEquals(List.of("error", "exit_code", "problems"), List.copyOf(m.keySet()), r.out());
        assertEquals(exit, m.get("exit_code"));
        return m;
    }

    @Test
    void anInvalidConfigWithJsonIsOneObjectWithEveryProblemAndItsPlace() throws Exception {
        NhcProcess.Result r = run(cfg("  - { name: a, use: test.wait, with: { value: many } }\n  - { name: b, use: test.wiat }\n"), "--json");
        assertTrue(r.err().contains(dir.resolve("nhc.yaml") + ":4:47:"), "stderr says the same to a person: " + r.err());
        Map<String, Object> m = jsonError(r, 2);
        assertEquals("the config is invalid; nothing was done", m.get("error"));
        List<?> problems = (List<?>) m.get("problems");
        assertEquals(2, problems.size(), r.out());
        assertEquals(Map.of("file", dir.resolve("nhc.yaml").toString(), "line", 4, "column", 47,
                "message", "'value' in check 'a' (test.wait) with: must be a whole number, not the text 'many'"), problems.get(0), r.out());
        assertEquals(5, ((Map<?, ?>) problems.get(1)).get("line"));

        // The same for a replay, and for a command line nhc cannot read.
        NhcProcess.Result replay = NhcProcess.run(dir, NhcProcess.withTestProbes(), "replay", "--json", "-c", dir.resolve("nhc.yaml").toString(),
                "--kernel-log", dir.resolve("nhc.yaml").toString());
        assertEquals(problems, jsonError(replay, 2).get("problems"));
        Map<String, Object> usage = jsonError(NhcProcess.run(dir, Map.of(), "run", "--json", "--verbos"), 2);
        assertTrue(String.valueOf(usage.get("error")).contains("--verbos"), usage.toString());
    }

    @Test
    void anUnreadableCaptureWithJsonIsUnknownAndNamesTheFileAndLine() throws Exception {
        Path c = dir.resolve("nhc.yaml");
        Files.writeString(c, cfg("  - { name: a, use: gpu.memory-repair }\n"));
        Path capture = dir.resolve("garbled.txt");
        Files.writeString(capture, "\n==============NVSMI LOG==============\n\nAttached GPUs : 1\nGPU 00000001:00:00.0\n    Retired Pages\n"
                + "        Single Bit ECC : many\n");
        // issue 18 item 4: what nhc could not read is judged unknown with the reason, never refused and never a pass
        NhcProcess.Result r = NhcProcess.run(dir, Map.of(), "replay", "--json", "-c", c.toString(), "--nvidia-smi-q", capture.toString());
        assertEquals(0, r.exit(), r.out() + r.err());
        Map<String, Object> m = JSON.std.mapFrom(r.out());
        assertEquals("unknown", m.get("severity"), r.out());
        Map<?, ?> finding = (Map<?, ?>) ((List<?>) m.get("findings")).get(0);
        assertEquals("unknown", finding.get("severity"), r.out());
        assertTrue(String.valueOf(finding.get("message")).contains(capture + " is partial: GPU 0 (0001:00:00.0): line 7: expected a number for 'Single Bit ECC', found 'many'"),
                r.out());
    }
}
