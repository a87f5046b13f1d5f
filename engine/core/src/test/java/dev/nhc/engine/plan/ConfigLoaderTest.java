package dev.nhc.engine.plan;

import dev.nhc.engine.config.CheckConfig;
import dev.nhc.engine.config.Config;
import dev.nhc.engine.config.ConfigException;
import dev.nhc.engine.config.Ownership;
import dev.nhc.engine.config.YamlReader;
import dev.nhc.probe.ProbeResult;
import dev.nhc.engine.testing.PassThroughRules;
import dev.nhc.engine.testing.ScriptedProbe;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class ConfigLoaderTest {
    @TempDir
    Path dir;

    private final ConfigLoader loader = new ConfigLoader(
            new ProbeRegistry(List.of(new ScriptedProbe("disk.usage", false, ctx -> ProbeResult.of()),
                    new ScriptedProbe("gpu.inventory", true, ctx -> ProbeResult.of()))),
            new PassThroughRules(), List.of()).enforceOwnership(false);

    private Path write(String text) throws IOException {
        Path f = dir.resolve("nhc.yaml");
        Files.writeString(f, text);
        return f;
    }

    private ConfigException invalid(String text) throws IOException {
        return assertThrows(ConfigException.class, () -> loader.load(write(text)));
    }

    private static void assertProblem(ConfigException e, int line, int column, String fragment) {
        boolean found = e.problems().stream().anyMatch(p -> p.location().line() == line && p.location().column() == column
                && p.message().contains(fragment));
        assertTrue(found, "expected " + line + ":" + column + " '" + fragment + "' in:\n" + e.getMessage());
    }

    private Config configOf(Path file) throws Exception {
        return loader.load(file).config();
    }

    @Test
    void loadsAValidConfigWithDefaults() throws Exception {
        Config c = configOf(write("""
                nhc: 1
                settings:
                  deadline: 30s
                hostgroups:
                  gpu: "gpu-[001-004]"
                checks:
                  - name: root-fs
                    use: disk.usage
                    with: { mount: / }
                    timeout: 5s
                  - name: gpus
                    use: gpu.inventory
                    on: gpu
                    with: { count: 8 }
                    every: 6h
                """));
        assertEquals(Duration.ofSeconds(30), c.settings().deadline());
        assertEquals(Duration.ofSeconds(10), c.settings().checkTimeout());
        assertEquals(2, c.checks().size());
        CheckConfig gpus = c.check("gpus").orElseThrow();
        assertEquals(8L, gpus.with().raw("count"));
        assertEquals(Duration.ofHours(6), gpus.every());
        assertTrue(gpus.on().matches("gpu-003"));
        assertTrue(!gpus.on().matches("login1"));
        assertEquals("/", c.check("root-fs").orElseThrow().with().raw("mount"));
        assertEquals(0L, c.check("root-fs").orElseThrow().with().raw("value"), "defaults are filled in");
    }

    @Test
    void aCheckOnAHostgroupThatExcludesAHostLoads() throws Exception {
        Config c = configOf(write("""
                nhc: 1
                hostgroups:
                  gpu: "gpu-[01-08], !gpu-03"
                checks:
                  - { name: gpus, use: gpu.inventory, on: gpu }
                  - { name: others, use: disk.usage, on: "!gpu" }
                """));
        CheckConfig gpus = c.check("gpus").orElseThrow();
        assertTrue(gpus.on().matches("gpu-04"));
        assertTrue(!gpus.on().matches("gpu-03"));
        assertTrue(c.check("others").orElseThrow().on().matches("gpu-03"));
    }

    /** 10,000 checks ran the daemon's 64 MiB heap out: more than the bound is refused at the first check past it. */
    @Test
    void moreChecksThanTheBoundAreRefusedAtTheFirstOnePast() throws Exception {
        StringBuilder b = new StringBuilder("nhc: 1\nchecks:\n");
        for (int i = 1; i <= ConfigLoader.MAX_CHECKS + 1; i++) {
            b.append("  - { name: c").append(i).append(", use: disk.usage }\n");
        }
        ConfigException e = invalid(b.toString());
        assertEquals(1, e.problems().size(), e.getMessage());
        assertProblem(e, ConfigLoader.MAX_CHECKS + 3, 5, "more than 1000 checks (1001)");
        int lines = b.toString().split("\n").length;
        String fewer = b.substring(0, b.lastIndexOf("  - "));
        assertEquals(ConfigLoader.MAX_CHECKS, loader.load(write(fewer)).checks().size(), "the bound itself loads (" + lines + " lines)");
    }

    @Test
    void anEmptyHostgroupIsAnError() throws Exception {
        ConfigException e = invalid("nhc: 1\nhostgroups:\n  gpu: []\nchecks:\n  - { name: gpus, use: gpu.inventory, on: gpu }\n");
        assertProblem(e, 3, 8, "hostgroup 'gpu' has no host patterns");
    }

    @Test
    void malformedYamlNamesLineAndColumn() throws Exception {
        ConfigException e = invalid("nhc: 1\nchecks:\n  - name: a\n    use: [disk.usage\n");
        assertEquals(1, e.problems().size());
        assertTrue(e.problems().get(0).location().line() >= 4, e.getMessage());
        assertTrue(e.getMessage().startsWith(dir.resolve("nhc.yaml") + ":"), e.getMessage());
    }

    @Test
    void unknownKeysSuggestTheClosest() throws Exception {
        ConfigException e = invalid("""
                nhc: 1
                setings: {}
                checks:
                  - name: root-fs
                    use: disk.usage
                    wiht: { mount: / }
                  - name: b
                    use: disk.usage
                    with: { mout: / }
                """);
        assertProblem(e, 2, 1, "did you mean 'settings'");
        assertProblem(e, 6, 5, "did you mean 'with'");
        assertProblem(e, 9, 13, "did you mean 'mount'");
    }

    @Test
    void unknownProbeSuggestsAndListsNothingElseWrong() throws Exception {
        ConfigException e = invalid("nhc: 1\nchecks:\n  - name: x\n    use: disk.usag\n");
        assertProblem(e, 4, 10, "unknown probe 'disk.usag' (did you mean 'disk.usage'?)");
    }

    @Test
    void wrongTypesAreNamed() throws Exception {
        ConfigException e = invalid("""
                nhc: 1
                settings: { deadline: 10GiB, check_timeout: [1] }
                checks:
                  - name: x
                    use: disk.usage
                    with: { value: lots }
                    for: 0
                    remedy: pray
                """);
        assertProblem(e, 2, 23, "not a duration");
        assertProblem(e, 2, 45, "single value");
        assertProblem(e, 6, 20, "whole number");
        assertProblem(e, 7, 10, "'for'");
        assertProblem(e, 8, 13, "unknown remedy 'pray'");
    }

    @Test
    void yaml11NumbersJavaCannotReadStayText() throws Exception {
        // YAML 1.1 reads 12:30 as base 60, 0b101 as binary and .inf as infinity: a text param takes them as written.
        Config c = configOf(write("nhc: 1\nchecks:\n  - { name: a, use: disk.usage, with: { mount: 12:30 } }\n"
                + "  - { name: b, use: disk.usage, with: { mount: 0b101 } }\n"));
        assertEquals("12:30", c.check("a").orElseThrow().with().raw("mount"));
        assertEquals("0b101", c.check("b").orElseThrow().with().raw("mount"));
        // ... and a number param names the key and the place.
        ConfigException e = invalid("nhc: 1\nchecks:\n  - { name: a, use: disk.usage, with: { value: 12:30, count: .inf } }\n");
        assertProblem(e, 3, 48, "'value' in check 'a' (disk.usage) with: must be a whole number, not the text '12:30'");
        assertProblem(e, 3, 62, "'count' in check 'a' (disk.usage) with: must be a whole number, not the text '.inf'");
    }

    @Test
    void aUnitErrorNamesTheKey() throws Exception {
        ConfigException e = invalid("nhc: 1\nsettings: { deadline: 5x }\nchecks:\n  - { name: x, use: disk.usage }\n");
        assertProblem(e, 2, 23, "'deadline' in settings: unknown unit 'x' in '5x'");
    }

    @Test
    void nhcListShowsEveryKeyACheckAccepts() throws Exception {
        configOf(write("nhc: 1\nchecks:\n  - { name: x, use: disk.usage, description: root file system space }\n"));
        assertTrue(ConfigLoader.checkKeys().stream().anyMatch(k -> k.name().equals("description")));
        ConfigException e = invalid("nhc: 1\nchecks:\n  - { name: x, use: disk.usage, descripton: typo }\n");
        assertProblem(e, 3, 33, "known: " + String.join(", ", ConfigLoader.checkKeys().stream().map(k -> k.name()).toList()));
    }

    @Test
    void zeroTimeLimitsAreRefused() throws Exception {
        // A zero deadline abandons every check (and FAILs those whose hang means sickness); a zero interval busy-loops the daemon.
        ConfigException e = invalid("nhc: 1\nsettings: { deadline: 0s, check_timeout: 0, interval: 0ms }\nchecks:\n"
                + "  - { name: x, use: disk.usage }\n");
        assertProblem(e, 2, 23, "'deadline' in settings: must be longer than 0");
        assertProblem(e, 2, 42, "'check_timeout' in settings: must be longer than 0");
        assertProblem(e, 2, 55, "'interval' in settings: must be longer than 0");
    }

    @Test
    void duplicateCheckNamesAndDuplicateKeys() throws Exception {
        ConfigException e = invalid("""
                nhc: 1
                checks:
                  - name: x
                    use: disk.usage
                  - name: x
                    use: disk.usage
                """);
        assertProblem(e, 5, 11, "duplicate check name 'x' (first at line 3)");
        ConfigException keys = invalid("nhc: 1\nchecks:\n  - name: x\n    use: disk.usage\n    use: gpu.inventory\n");
        assertProblem(keys, 5, 5, "duplicate key 'use' (first at line 4)");
    }

    @Test
    void emptyMissingHugeAndDirectoryFiles() throws Exception {
        assertProblem(invalid(""), 1, 1, "empty");
        assertProblem(invalid("# only a comment\n"), 1, 1, "empty");
        ConfigException missing = assertThrows(ConfigException.class, () -> loader.load(dir.resolve("nope.yaml")));
        assertTrue(missing.getMessage().contains("nope.yaml: no such file"), missing.getMessage());
        Path big = dir.resolve("big.yaml");
        Files.write(big, new byte[10 * 1024 * 1024]);
        ConfigException huge = assertThrows(ConfigException.class, () -> loader.load(big));
        assertTrue(huge.getMessage().contains("10485760 bytes"), huge.getMessage());
        ConfigException d = assertThrows(ConfigException.class, () -> loader.load(dir));
        assertTrue(d.getMessage().contains("is a directory"), d.getMessage());
    }

    @Test
    void missingVersionAndChecks() throws Exception {
        ConfigException e = invalid("settings: {}\n");
        assertTrue(e.getMessage().contains("missing 'nhc: 1'"), e.getMessage());
        assertTrue(e.getMessage().contains("no 'checks:'"), e.getMessage());
        assertProblem(invalid("nhc: 2\nchecks: []\n"), 1, 6, "unsupported schema version");
        assertProblem(invalid("- just\n- a list\n"), 1, 1, "must be a map");
    }

    @Test
    void anEmptyChecksListIsRejectedLikeAMissingOneWithItsPlace() throws Exception {
        assertProblem(invalid("nhc: 1\n"), 1, 1, "no 'checks:' list; a config without checks would pass every node");
        ConfigException empty = invalid("nhc: 1\nchecks: []\n");
        assertEquals(1, empty.problems().size(), empty.getMessage());
        assertProblem(empty, 2, 9, "'checks:' is empty; a config without checks would pass every node");
        assertProblem(invalid("nhc: 1\nchecks:\n"), 2, 1, "'checks:' is empty");
        assertProblem(invalid("nhc: 1\nchecks: ~\n"), 2, 1, "'checks:' is empty");
    }

    @Test
    void anUnclosedBraceBracketOrQuoteIsReportedWhereItWasOpened() throws Exception {
        // The brace opened on line 5 is noticed on line 6, where the next check starts.
        ConfigException brace = invalid("nhc: 1\nsettings:\n  deadline: 45s\nchecks:\n"
                + "  - { name: a, use: disk.usage, with: { mount: / }\n  - name: b\n");
        assertEquals(1, brace.problems().size(), brace.getMessage());
        assertProblem(brace, 6, 3, "YAML syntax error: the '{' opened at 5:5 is not closed (expected ',' or '}', but found '-')");

        ConfigException bracket = invalid("nhc: 1\nchecks:\n  - name: a\n    on: [gpu, cpu\n    use: disk.usage\n");
        assertProblem(bracket, 5, 8, "the '[' opened at 4:9 is not closed (expected ',' or ']', but found ':')");

        // At the end of the file there is no better place than the opening itself.
        assertProblem(invalid("nhc: 1\nchecks:\n  - { name: a, use: disk.usage\n"), 3, 5,
                "the '{' opened at 3:5 is not closed (the file ends before it is)");
        assertProblem(invalid("nhc: 1\nchecks:\n  - name: a\n    message: \"abc\n    use: disk.usage\n"), 4, 14,
                "the '\"' opened at 4:14 is not closed (the file ends before it is)");

        // A later quote closes the open one; the parser fails after it, and the open quote is named.
        ConfigException quote = invalid("nhc: 1\nchecks:\n  - name: a\n    message: 'abc\n    use: disk.usage\n"
                + "  - name: b\n    message: 'x'\n");
        assertEquals(1, quote.problems().size(), quote.getMessage());
        assertTrue(quote.getMessage().contains("the ''' opened at 4:14 is not closed on its line"), quote.getMessage());
    }

    @Test
    void evaluatorProblemsAreReportedWithTheirLocation() throws Exception {
        ConfigException e = invalid("nhc: 1\nchecks:\n  - name: x\n    use: disk.usage\n    fail: invalid\n");
        assertProblem(e, 5, 11, "test rules reject");
    }

    @Test
    void yamlBooleanLookalikesStayText() throws Exception {
        Config c = configOf(write("nhc: 1\nchecks:\n  - name: x\n    use: disk.usage\n    with: { mount: no }\n    on: [ \"n*\" ]\n"));
        assertEquals("no", c.check("x").orElseThrow().with().raw("mount"));
    }

    @Test
    void disabledChecksAreDropped() throws Exception {
        Config c = configOf(write("nhc: 1\nchecks:\n  - { name: x, use: disk.usage, enabled: false }\n  - { name: y, use: disk.usage }\n"));
        assertEquals(List.of("y"), c.checks().stream().map(CheckConfig::name).toList());
    }

    @Test
    void aliasBombIsRefused() throws Exception {
        StringBuilder y = new StringBuilder("nhc: 1\na: &a [x, x, x, x, x, x, x, x, x]\n");
        char prev = 'a';
        for (char n = 'b'; n <= 'k'; n++) {
            y.append(n).append(": &").append(n).append(" [");
            for (int i = 0; i < 9; i++) {
                y.append(i == 0 ? "" : ", ").append('*').append(prev);
            }
            y.append("]\n");
            prev = n;
        }
        ConfigException e = invalid(y.toString());
        // The guard itself, not the unknown top-level keys a..k that a config without the guard would also be refused for.
        assertTrue(e.getMessage().contains("the document expands to more than") && e.getMessage().contains("alias bomb"), e.getMessage());
    }

    @Test
    void asRootAConfigWritableByOthersIsRefused() throws Exception {
        assumeTrue(Ownership.runningAsRoot(), "ownership rules apply only when nhc runs as root");
        ConfigLoader strict = new ConfigLoader(loader.registry(), loader.rules(), List.of());
        Path f = write("nhc: 1\nchecks:\n  - { name: y, use: disk.usage }\n");
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-r--r--"));
        strict.load(f);
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-rw-rw-"));
        ConfigException e = assertThrows(ConfigException.class, () -> strict.load(f));
        assertTrue(e.getMessage().contains("writable by every user"), e.getMessage());
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-r--r--"));
        Files.setAttribute(f, "unix:uid", 65534);
        ConfigException owned = assertThrows(ConfigException.class, () -> strict.load(f));
        assertTrue(owned.getMessage().contains("owned by uid 65534"), owned.getMessage());
    }

    @Test
    void aRecursiveAliasIsAConfigErrorAtItsAnchor() throws Exception {
        ConfigException e = invalid("nhc: 1\nsettings: &s {x: *s}\nchecks:\n  - { name: y, use: disk.usage }\n");
        assertProblem(e, 2, 11, "alias *s is used inside its own anchor &s");
        ConfigException list = invalid("nhc: 1\nchecks: &c\n  - *c\n");
        assertProblem(list, 2, 9, "alias *c is used inside its own anchor &c");
    }

    @Test
    void aConfigWithSixtyAliasesLoads() throws Exception {
        StringBuilder y = new StringBuilder("nhc: 1\nchecks:\n  - { name: c0, use: disk.usage, on: &h [\"n*\", \"gpu-[01-08]\"] }\n");
        for (int i = 1; i <= 60; i++) {
            y.append("  - { name: c").append(i).append(", use: disk.usage, on: *h }\n");
        }
        Config c = loader.load(write(y.toString())).config();
        assertEquals(61, c.checks().size());
        assertTrue(c.checks().get(60).on().matches("gpu-03"));
        assertTrue(!c.checks().get(60).on().matches("login1"));
    }

    @Test
    void aBillionLaughsWithinTheAliasLimitIsRefusedQuickly() throws Exception {
        // Two aliases a level: few aliases, but 2^40 values once expanded.
        StringBuilder y = new StringBuilder("nhc: 1\nl0: &l0 [x, x]\n");
        for (int i = 1; i <= 40; i++) {
            y.append("l").append(i).append(": &l").append(i).append(" [*l").append(i - 1).append(", *l").append(i - 1).append("]\n");
        }
        ConfigException e = assertTimeoutPreemptively(Duration.ofSeconds(10), () -> invalid(y.toString()));
        assertTrue(e.getMessage().contains("more than " + YamlReader.MAX_VALUES + " values"), e.getMessage());
    }

    @Test
    void aFifoIsRefusedWithoutWaitingForAWriter() throws Exception {
        Path fifo = dir.resolve("fifo.yaml");
        assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor());
        ConfigException e = assertTimeoutPreemptively(Duration.ofSeconds(10), () -> assertThrows(ConfigException.class, () -> loader.load(fifo)));
        assertTrue(e.getMessage().contains(fifo + ": is a FIFO, not a regular file"), e.getMessage());
    }

    @Test
    void aLinkToDevZeroIsRefusedWithoutReadingIt() throws Exception {
        Path link = Files.createSymbolicLink(dir.resolve("zero.yaml"), Path.of("/dev/zero"));
        ConfigException e = assertTimeoutPreemptively(Duration.ofSeconds(10), () -> assertThrows(ConfigException.class, () -> loader.load(link)));
        assertTrue(e.getMessage().contains(link + ": is a character device (/dev/zero), not a regular file"), e.getMessage());
    }
}
