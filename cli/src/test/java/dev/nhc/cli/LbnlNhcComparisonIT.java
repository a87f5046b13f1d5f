package dev.nhc.cli;

import dev.nhc.cli.lbnl.LbnlImporter;
import dev.nhc.cli.lbnl.LbnlImporter.Entry;
import dev.nhc.cli.lbnl.LbnlImporter.Kind;
import dev.nhc.cli.lbnl.ShellWords;
import dev.nhc.cli.lbnl.YamlWriter;
import dev.nhc.engine.config.ConfigException;
import dev.nhc.engine.plan.ConfigLoader;
import dev.nhc.engine.plan.ProbeRegistry;
import dev.nhc.rules.RuleEngine;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code nhc import-lbnl} against a real LBNL NHC tree given with {@code -Plbnl -Dnhc.lbnl=DIR}
 * (its {@code nhc} driver, {@code scripts/} and sample configs). It imports the configs the tree
 * ships and checks that every line is accounted for; then, where bash is present, it runs LBNL NHC
 * and the translated check on this machine, line by line, and requires the same pass or fail.
 */
@Tag("lbnl")
class LbnlNhcComparisonIT {
    @TempDir
    Path dir;

    private static Path tree() {
        String d = System.getProperty("nhc.lbnl", "");
        assumeTrue(!d.isBlank(), "no LBNL NHC tree given: these tests need -Plbnl -Dnhc.lbnl=DIR, DIR holding LBNL NHC's nhc, nhc.conf and scripts/"
                + " (LBNL NHC is not in Debian or any package registry)");
        Path t = Path.of(d).toAbsolutePath();
        assumeTrue(Files.isRegularFile(t.resolve("nhc")) && Files.isDirectory(t.resolve("scripts")) && Files.isRegularFile(t.resolve("nhc.conf")),
                "-Dnhc.lbnl=" + d + " is not an LBNL NHC tree: it needs nhc, nhc.conf and scripts/");
        return t;
    }

    /** The configs the tree ships, and its sample with the example lines (commented "#   * || …") switched on. */
    private static Map<String, String> shippedConfigs(Path tree) throws Exception {
        Map<String, String> configs = new LinkedHashMap<>();
        String sample = Files.readString(tree.resolve("nhc.conf"), StandardCharsets.UTF_8);
        configs.put("nhc.conf", sample);
        if (Files.isRegularFile(tree.resolve("nhc-test.conf"))) {
            configs.put("nhc-test.conf", Files.readString(tree.resolve("nhc-test.conf"), StandardCharsets.UTF_8));
        }
        if (Files.isDirectory(tree.resolve("test"))) {
            try (Stream<Path> s = Files.list(tree.resolve("test"))) {
                for (Path p : s.filter(p -> p.toString().endsWith(".conf")).sorted().toList()) {
                    configs.put("test/" + p.getFileName(), Files.readString(p, StandardCharsets.UTF_8));
                }
            }
        }
        configs.put("nhc.conf (examples on)", sample.lines()
                .map(l -> l.matches("#\\s+\\S+\\s*\\|\\|.*") ? l.substring(1) : l).collect(Collectors.joining("\n", "", "\n")));
        return configs;
    }

    /** Line numbers LBNL NHC would evaluate: not blank, not a comment (no config here continues a line). */
    private static Set<Integer> activeLines(String conf) {
        List<String> lines = conf.lines().toList();
        return IntStream.range(0, lines.size()).filter(i -> !lines.get(i).isBlank() && !lines.get(i).strip().startsWith("#"))
                .mapToObj(i -> i + 1).collect(Collectors.toCollection(TreeSet::new));
    }

    @Test
    void everyLineOfTheShippedConfigsIsTranslatedOrCarriedOverWithAReason() throws Exception {
        Path tree = tree();
        StringBuilder report = new StringBuilder("import-lbnl coverage of " + tree + ":\n");
        for (Map.Entry<String, String> c : shippedConfigs(tree).entrySet()) {
            LbnlImporter.Result r = new LbnlImporter(LbnlImporter.DEFAULT_LBNL_NHC).importConfig(c.getKey(), c.getValue());
            Set<Integer> accounted = r.entries().stream().map(e -> e.line().number()).collect(Collectors.toCollection(TreeSet::new));
            assertEquals(activeLines(c.getValue()), accounted, c.getKey() + ": every non-comment line must be accounted for");
            for (Entry e : r.entries()) {
                String where = c.getKey() + ":" + e.line().number() + ": " + e.line().text();
                switch (e.kind()) {
                    case TRANSLATED -> assertTrue(!e.checks().isEmpty() || !e.settings().isEmpty() || !e.notes().isEmpty(), where + " translated into nothing");
                    case CARRIED_OVER, REFUSED -> assertFalse(e.reason() == null || e.reason().isBlank(), where + " has no reason");
                }
                if (e.kind() != Kind.TRANSLATED) {
                    report.append("  ").append(c.getKey()).append(':').append(e.line().number()).append(' ').append(e.kind()).append(": ")
                            .append(e.line().text().strip()).append(" -- ").append(e.reason()).append('\n');
                }
            }
            // the config loads (a config with no check at all, such as LBNL's test config, is one nhc refuses to run)
            String yaml = YamlWriter.write(r);
            if (r.entries().stream().allMatch(e -> e.checks().isEmpty())) {
                assertTrue(yaml.contains("checks: []"), yaml);
                continue;
            }
            try {
                new ConfigLoader(ProbeRegistry.load(), new RuleEngine(), ConfigLoader.sectionsOnClassPath()).parse(c.getKey() + ".yaml", yaml, null);
            } catch (ConfigException ex) {
                fail(c.getKey() + ": the imported config does not load: " + ex.problems() + "\n" + yaml);
            }
            report.insert(report.indexOf("\n") + 1, String.format("  %-24s %3d lines: %3d translated, %3d carried over as script, %3d refused%n",
                    c.getKey(), r.entries().size(), r.count(Kind.TRANSLATED), r.count(Kind.CARRIED_OVER), r.count(Kind.REFUSED)));
        }
        System.out.print(report);
    }

    @Test
    void translatedHostChecksPassAndFailWhereLbnlNhcDoesOnThisMachine() throws Exception {
        Path tree = tree();
        assumeTrue(Files.isExecutable(Path.of("/bin/bash")), "no /bin/bash on this machine: LBNL NHC cannot run here");
        Set<String> lines = new LinkedHashSet<>();
        for (String conf : shippedConfigs(tree).values()) {
            for (Entry e : new LbnlImporter(LbnlImporter.DEFAULT_LBNL_NHC).importConfig("c", conf).entries()) {
                // each line runs alone below: one whose value an earlier line pins ($HW_CORES) means something else alone
                if (e.kind() == Kind.TRANSLATED && !e.checks().isEmpty() && e.line().target().equals("*")
                        && ShellWords.parse(e.line().check()).isStatic()) {
                    lines.add(e.line().check());
                }
            }
        }
        lines.addAll(MachineLines.forThisMachine(dir));
        StringBuilder table = new StringBuilder("LBNL NHC vs nhc, translated checks on this machine:\n");
        List<String> disagreements = new ArrayList<>();
        int compared = 0;
        for (String check : lines) {
            String skip = MachineLines.unsafeToRun(check);
            if (skip != null) {
                table.append(String.format("  %-6s %-6s %s  (not run: %s)%n", "-", "-", check, skip));
                continue;
            }
            boolean lbnl = lbnlPasses(tree, check);
            boolean nhc = nhcPasses(check);
            compared++;
            table.append(String.format("  %-6s %-6s %s%n", lbnl ? "pass" : "FAIL", nhc ? "pass" : "FAIL", check));
            if (lbnl != nhc) {
                disagreements.add(check + ": LBNL NHC " + (lbnl ? "passes" : "fails") + ", nhc " + (nhc ? "passes" : "fails"));
            }
        }
        table.append("  (columns: LBNL NHC, nhc) ").append(compared).append(" compared, ").append(disagreements.size()).append(" disagree\n");
        System.out.print(table);
        assertTrue(compared >= 20, "too few lines compared: " + table);
        assertEquals(List.of(), disagreements, table.toString());
    }

    /**
     * Carried-over lines that only observe (no start, restart, kill, remount or command) run
     * through nhc's script probe, which has LBNL NHC evaluate them with {@code nhc -e}: the verdict
     * must be LBNL NHC's own.
     */
    /**
     * The tree as an LBNL NHC installation that nhc, as root, agrees to run: a copy only root can change
     * (the shared tree may be group-writable, and nhc refuses to execute such a script), laid out as its
     * config directory: {@code nhc}, and {@code scripts/} that {@code nhc -D DIR} loads.
     */
    private Path installed(Path tree) throws Exception {
        Path copy = Files.createDirectories(dir.resolve("lbnl-nhc"));
        Files.setPosixFilePermissions(copy, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        Path scripts = Files.createDirectories(copy.resolve("scripts"));
        Files.setPosixFilePermissions(scripts, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.copy(tree.resolve("nhc"), copy.resolve("nhc"));
        Files.setPosixFilePermissions(copy.resolve("nhc"), java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        try (Stream<Path> s = Files.list(tree.resolve("scripts"))) {
            for (Path p : s.filter(p -> p.toString().endsWith(".nhc")).toList()) {
                Path to = scripts.resolve(p.getFileName().toString());
                Files.copy(p, to);
                Files.setPosixFilePermissions(to, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
            }
        }
        return copy;
    }

    @Test
    void carriedOverLinesGiveLbnlNhcsOwnVerdictThroughTheScriptProbe() throws Exception {
        Path tree = tree();
        Path installed = installed(tree);
        assumeTrue(Files.isExecutable(Path.of("/bin/bash")), "no /bin/bash on this machine: LBNL NHC cannot run here");
        Set<String> observeOnly = Set.of("check_hw_physmem_free", "check_hw_mem_free", "check_hw_mem", "check_hw_eth", "check_hw_gm",
                "check_file_test", "check_fs_inodes", "check_fs_mount", "check_fs_mount_rw", "check_fs_mount_ro", "check_ps_blacklist");
        Set<String> lines = new LinkedHashSet<>();
        for (String conf : shippedConfigs(tree).values()) {
            for (Entry e : new LbnlImporter(LbnlImporter.DEFAULT_LBNL_NHC).importConfig("c", conf).entries()) {
                String fn = e.line().check().split("\\s+", 2)[0];
                if (e.kind() == Kind.CARRIED_OVER && !e.checks().isEmpty() && observeOnly.contains(fn)
                        && !(fn.startsWith("check_fs_mount") && e.line().check().matches(".*\\s-[0reEFO]\\b.*"))) {
                    lines.add(e.line().check());
                }
            }
        }
        lines.addAll(List.of("check_hw_gm myri0", "check_file_test -N /etc/passwd", "check_fs_inodes / 1", "check_fs_inodes / 1e",
                "check_ps_blacklist no-such-process-here"));
        StringBuilder table = new StringBuilder("LBNL NHC vs nhc running the carried-over line (nhc -e), on this machine:\n");
        List<String> disagreements = new ArrayList<>();
        for (String check : lines) {
            String skip = MachineLines.unsafeToRun(check);
            if (skip != null) {
                table.append(String.format("  %-6s %-6s %s  (not run: %s)%n", "-", "-", check, skip));
                continue;
            }
            boolean lbnl = lbnlPasses(tree, check);
            LbnlImporter.Result r = new LbnlImporter(installed.resolve("nhc").toString()).importConfig("one.conf", "* || " + check + "\n");
            if (r.entries().get(0).kind() != Kind.CARRIED_OVER) {
                continue; // translated now: LbnlSideBySideIT compares it
            }
            // the copy is not installed in /etc/nhc: LBNL NHC's -D names its config directory, where it loads scripts/ from
            String yaml = YamlWriter.write(r).replace("\"-e\", ", "\"-D\", " + installed + ", \"-e\", ");
            boolean nhc = nhcRuns(yaml, check);
            table.append(String.format("  %-6s %-6s %s%n", lbnl ? "pass" : "FAIL", nhc ? "pass" : "FAIL", check));
            if (lbnl != nhc) {
                disagreements.add(check + ": LBNL NHC " + (lbnl ? "passes" : "fails") + ", nhc " + (nhc ? "passes" : "fails"));
            }
        }
        System.out.print(table);
        assertEquals(List.of(), disagreements, table.toString());
    }

    /** LBNL NHC on a one-line config: no resource manager, nothing marked offline, its state in the temp dir. */
    private boolean lbnlPasses(Path tree, String check) throws Exception {
        Path conf = Files.writeString(Files.createTempFile(dir, "lbnl", ".conf"), "* || " + check + "\n");
        Path run = Files.createDirectories(dir.resolve("lbnl-run"));
        Path out = Files.createTempFile(dir, "lbnl", ".out");
        ProcessBuilder pb = new ProcessBuilder("/bin/bash", tree.resolve("nhc").toString(), "-c", conf.toString(), "-l", "-", "-t", "25",
                "INCDIR=" + tree.resolve("scripts"), "HELPERDIR=" + run, "RUNDIR=" + run, "NHC_RM=none", "MARK_OFFLINE=0", "DETACHED_MODE=0")
                .redirectErrorStream(true).redirectOutput(out.toFile()).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        pb.environment().keySet().removeIf(k -> k.startsWith("NHC") || k.equals("HOSTNAME"));
        pb.environment().put("PATH", "/usr/sbin:/usr/bin:/sbin:/bin");
        Process p = pb.start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail("LBNL NHC did not finish within 60 s on: " + check);
        }
        return p.exitValue() == 0;
    }

    private boolean nhcPasses(String check) throws Exception {
        LbnlImporter.Result r = new LbnlImporter(LbnlImporter.DEFAULT_LBNL_NHC).importConfig("one.conf", "* || " + check + "\n");
        return nhcRuns(YamlWriter.write(r), check);
    }

    private boolean nhcRuns(String imported, String check) throws Exception {
        String yaml = imported.replaceFirst("(?m)^nhc: 1$", "nhc: 1\nsettings: { state_dir: " + dir.resolve("state") + " }");
        Path file = Files.writeString(Files.createTempFile(dir, "one", ".yaml"), yaml);
        NhcProcess.Result res = NhcProcess.run(dir, Map.of(), "run", "-c", file.toString());
        assertTrue(res.exit() == 0 || res.exit() == 1, "nhc run exited " + res.exit() + " on " + check + ":\n" + res.out() + res.err() + yaml);
        return res.exit() == 0;
    }
}
