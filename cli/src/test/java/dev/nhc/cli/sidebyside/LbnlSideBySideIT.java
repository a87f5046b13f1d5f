package dev.nhc.cli.sidebyside;

import dev.nhc.cli.lbnl.LbnlImporter;
import dev.nhc.cli.lbnl.LbnlImporter.Emitted;
import dev.nhc.cli.lbnl.LbnlImporter.Entry;
import dev.nhc.cli.lbnl.LbnlImporter.Kind;
import dev.nhc.cli.lbnl.ShellWords;
import dev.nhc.cli.lbnl.Sysconfig;
import dev.nhc.cli.lbnl.YamlWriter;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The real LBNL NHC 1.4.3 and the nhc config {@code import-lbnl} makes of the same site config, run
 * side by side on the same fake node, for every public site config of {@code lbnl-sites/}: a
 * healthy node built from what the config checks, and broken ones ({@link Variants}). LBNL NHC runs
 * chrooted into the node's root, every check named as it runs; nhc runs with settings.root on that
 * root; both see the same /proc and /sys files, the same mounted filesystems (sized tmpfs, measured
 * by df and by statvfs), the same processes and programs (lbnl-side-by-side.sh). For every
 * translated line, whether it ran on this host and whether it failed must be the same.
 *
 * <p>Lines are compared when LBNL NHC's own scripts define their function: the site functions of
 * Azure's, DeepOps' and Lambda's scripts are not LBNL NHC's (their code is the sites', not shipped
 * here), so their translations are told apart on stderr by the import and tested on nhc's side.
 * Needs root (namespaces, mounts, chroot), as in CI.
 */
@Tag("lbnl")
class LbnlSideBySideIT {
    /** Each site config with the host name its node gets: one the config's host matches select. */
    private static final Map<String, String> SITES = new LinkedHashMap<>();

    static {
        SITES.put("lbnl-sample.conf", "n0001.cluster.local");
        SITES.put("azure-nd96isr-h100-v5.conf", "ndv5-0001.internal.cloudapp.net");
        SITES.put("azure-nd96asr-v4.conf", "ndv4-0001.internal.cloudapp.net");
        SITES.put("azure-hb176rs-v4.conf", "hbv4-0001.internal.cloudapp.net");
        SITES.put("azure-hx176rs.conf", "hx-0001.internal.cloudapp.net");
        SITES.put("deepops-dgx-a100.conf", "dgx01.cluster.local");
        SITES.put("lambda.conf", "lambda-hyperplane-01");
        SITES.put("microway-compute.conf", "node001.cluster");
        SITES.put("microway-blocking-io.conf", "node002.cluster");
        SITES.put("vub.conf", "node3001.hydra.brussel.vsc");
        SITES.put("curc.conf", "shas0101.rc.int.colorado.edu");
        SITES.put("niflheim.conf", "x001.nifl.fysik.dtu.dk");
    }

    /** The node's LBNL sysconfig file for a site config whose lines read it (written for the test: the sites' are not public). */
    private static final Map<String, String> SYSCONFIGS = Map.of("vub.conf", "vub.sysconfig");

    /**
     * Divergences kept on purpose, by config file and line, with why (docs/lbnl-migration.md lists them).
     * A disagreement not listed here fails the test.
     */
    private static final Map<String, String> KEPT = Map.of();

    /** Where each run's stage and outputs stay for reading after the test: under target/, which a build cleans. */
    private final Path dir = Path.of(System.getProperty("nhc.testClasses", "target/test-classes")).toAbsolutePath().getParent().resolve("side-by-side");

    private static Path tree() {
        String d = System.getProperty("nhc.lbnl", "");
        assumeTrue(!d.isBlank(), "no LBNL NHC tree given: these tests need -Plbnl -Dnhc.lbnl=DIR, DIR holding LBNL NHC's nhc and scripts/"
                + " (LBNL NHC is not in Debian or any package registry)");
        Path t = Path.of(d).toAbsolutePath();
        assumeTrue(Files.isRegularFile(t.resolve("nhc")) && Files.isDirectory(t.resolve("scripts")), "-Dnhc.lbnl=" + d + " is not an LBNL NHC tree");
        return t;
    }

    /** The functions LBNL NHC's own scripts define. */
    private static Set<String> lbnlFunctions(Path tree) throws IOException {
        Set<String> out = new TreeSet<>();
        Pattern def = Pattern.compile("(?m)^\\s*(?:function\\s+)?(check_[A-Za-z0-9_]+)\\s*\\(\\)");
        try (Stream<Path> s = Files.list(tree.resolve("scripts"))) {
            for (Path p : s.filter(p -> p.toString().endsWith(".nhc")).toList()) {
                Matcher m = def.matcher(Files.readString(p, StandardCharsets.ISO_8859_1));
                while (m.find()) {
                    out.add(m.group(1));
                }
            }
        }
        return out;
    }

    private static String site(String file) throws IOException {
        try (InputStream in = LbnlSideBySideIT.class.getResourceAsStream("/lbnl-sites/" + file)) {
            assertTrue(in != null, "no lbnl-sites/" + file + " on the test class path");
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static String resource(String name) throws IOException {
        try (InputStream in = LbnlSideBySideIT.class.getResourceAsStream("/" + name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** One config line as both saw it in one variant: [LBNL ran, LBNL failed, nhc ran, nhc failed]. */
    private record Seen(boolean lbnlRan, boolean lbnlFailed, boolean nhcRan, boolean nhcFailed) {
        String show() {
            return "LBNL NHC " + (lbnlRan ? lbnlFailed ? "fails" : "passes" : "does not run it")
                    + ", nhc " + (nhcRan ? nhcFailed ? "fails" : "passes" : "does not run it");
        }
    }

    @Test
    void lbnlNhcAndTheImportedConfigAgreeOnEveryTranslatedLineOfTheSiteConfigs() throws Exception {
        Path tree = tree();
        assumeTrue(new ProcessBuilder("id", "-u").start().inputReader().readLine().equals("0"),
                "the side-by-side run needs root: it mounts the node's filesystems in a namespace and chroots LBNL NHC into it");
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/unshare")), "no unshare (util-linux)");
        Set<String> lbnl = lbnlFunctions(tree);
        try (Stream<Path> old = Files.exists(dir) ? Files.walk(dir) : Stream.empty()) {
            old.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
        String pick = System.getProperty("nhc.sideBySide.only", "");
        StringBuilder report = new StringBuilder("LBNL NHC 1.4.3 vs nhc, side by side on fake nodes:\n");
        List<String> disagreements = new ArrayList<>();
        int comparedLines = 0;
        int comparedRuns = 0;
        List<String> neverFailed = new ArrayList<>();
        int withChecks = 0;
        int otherHosts = 0;
        for (Map.Entry<String, String> s : SITES.entrySet()) {
            if (!pick.isEmpty() && !pick.equals(s.getKey())) {
                continue;
            }
            String conf = site(s.getKey());
            String sysText = SYSCONFIGS.containsKey(s.getKey()) ? site(SYSCONFIGS.get(s.getKey())) : null;
            Sysconfig sys = sysText == null ? null : Sysconfig.parse(SYSCONFIGS.get(s.getKey()), sysText);
            LbnlImporter.Result r = new LbnlImporter(LbnlImporter.DEFAULT_LBNL_NHC, sys).importConfig(s.getKey(), conf);
            List<Entry> compared = new ArrayList<>();
            Set<String> only = new LinkedHashSet<>();
            int siteOnly = 0;
            for (Entry e : r.entries()) {
                if (e.kind() != Kind.TRANSLATED) {
                    continue;
                }
                String function = function(e, sys);
                if (!e.checks().isEmpty() && function != null && !lbnl.contains(function)) {
                    siteOnly++;
                    continue;
                }
                compared.add(e);
                e.checks().forEach(c -> only.add(c.name()));
            }
            FakeNodeBuilder healthy = FakeNodeBuilder.from(conf, s.getValue(), sys);
            if (sysText != null) {
                // LBNL NHC sources it before the config (SYSCONFIGDIR is /etc/sysconfig where that directory exists and /etc/debian_version does not)
                healthy.node().files.put(FakeNode.SYSCONFIG, new FakeNode.FileSpec(sysText, 0644, 0));
            }
            Map<Integer, List<String>> outcomes = new LinkedHashMap<>();
            for (Variants.Variant v : Variants.all(healthy.forbidden)) {
                FakeNode node = v.change().apply(healthy.node().copy());
                Map<Integer, Seen> seen = run(tree, s.getKey(), conf, r, node, v.name(), only);
                comparedRuns++;
                for (Entry e : compared) {
                    Seen x = seen.get(e.line().number());
                    outcomes.computeIfAbsent(e.line().number(), k -> new ArrayList<>()).add(v.name() + ": " + x.show());
                    boolean agree = e.checks().isEmpty() ? !x.lbnlFailed() : x.lbnlRan() == x.nhcRan() && x.lbnlFailed() == x.nhcFailed();
                    String key = s.getKey() + ":" + e.line().number();
                    if (!agree && !KEPT.containsKey(key + ":" + v.name())) {
                        disagreements.add(key + " (" + v.name() + "): " + e.line().check() + " -- " + x.show());
                    }
                }
            }
            comparedLines += compared.size();
            for (Entry e : compared) {
                List<String> seen = outcomes.get(e.line().number());
                if (!e.checks().isEmpty() && seen.stream().allMatch(o -> o.contains("LBNL NHC does not run it"))) {
                    otherHosts++;
                } else if (!e.checks().isEmpty()) {
                    withChecks++;
                    if (seen.stream().noneMatch(o -> o.contains("LBNL NHC fails"))) {
                        neverFailed.add(s.getKey() + ":" + e.line().number() + ": " + e.line().check());
                    }
                }
            }
            report.append(String.format("  %-28s %3d lines compared in %d runs (%d site-function lines left to nhc's tests, %d carried over, %d refused)%n",
                    s.getKey(), compared.size(), Variants.all(List.of()).size(), siteOnly, r.count(Kind.CARRIED_OVER), r.count(Kind.REFUSED)));
        }
        report.append("  ").append(comparedLines).append(" translated lines, ").append(comparedRuns).append(" runs of each, ")
                .append(disagreements.size()).append(" disagreements; ").append(withChecks - neverFailed.size()).append(" of the ").append(withChecks)
                .append(" lines with checks that run on their node seen both passing and failing (the others in never-failed.txt); ")
                .append(otherHosts).append(" lines for other hosts, run by neither\n");
        System.out.print(report);
        Files.write(dir.resolve("disagreements.txt"), disagreements);
        Files.write(dir.resolve("never-failed.txt"), neverFailed);
        assertTrue(!pick.isEmpty() || comparedLines > 250, report.toString());
        assertTrue(!pick.isEmpty() || neverFailed.size() * 10 < withChecks, "most lines must be seen failing too:\n" + report
                + String.join("\n", neverFailed));
        assertTrue(disagreements.isEmpty(), report + String.join("\n", disagreements));
    }

    /** The function a line calls on the node (with its sysconfig), or null for a line that sets variables. */
    private static String function(Entry e, Sysconfig sys) {
        ShellWords.Parsed p = ShellWords.parse(sys == null ? e.line().check() : sys.resolve(e.line().check()));
        return p.isStatic() && !p.words().isEmpty() && p.words().get(0).startsWith("check_") ? p.words().get(0) : null;
    }

    /** One variant: stage the node, run both in a namespace, and read what each did with each config line. */
    private Map<Integer, Seen> run(Path tree, String file, String conf, LbnlImporter.Result r, FakeNode node, String variant,
                                   Set<String> only) throws Exception {
        Path stage = dir.resolve(file.replace(".conf", "") + "-" + variant);
        Path out = stage.resolve("out");
        Files.createDirectories(out);
        FakeRoot.write(node, stage);
        Path ps = stage.resolve("ps");
        Files.writeString(ps, resource("lbnl-side-by-side-ps.sh"));
        Files.setPosixFilePermissions(ps, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.writeString(out.resolve("lbnl.conf"), conf);
        Path state = Files.createDirectories(out.resolve("state"));
        Files.setPosixFilePermissions(state, PosixFilePermissions.fromString("rwx------"));
        Path scenario = Files.writeString(out.resolve("nvml.json"), nvml(!variant.equals("tools")));
        Files.writeString(out.resolve("nhc.yaml"), withSettings(YamlWriter.write(r), stage.resolve("mnt"), state));
        Path script = Files.writeString(stage.resolve("side-by-side.sh"), resource("lbnl-side-by-side.sh"));
        List<String> cmd = new ArrayList<>(List.of("unshare", "-m", "-u", "--propagation", "private", "bash", script.toString(),
                stage.toString(), tree.toString(), System.getProperty("nhc.app"), out.toString()));
        if (!only.isEmpty()) {
            cmd.add("--only");
            cmd.addAll(only);
        }
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(stage.resolve("script.log").toFile());
        pb.environment().put("NHC_FAKE_NVML_SCENARIO", scenario.toString());
        pb.environment().remove("SLURMD_NODENAME");
        Process p = pb.start();
        if (!p.waitFor(180, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(file + " " + variant + ": the side-by-side run did not finish within 180 s");
        }
        assertEquals(0, p.exitValue(), file + " " + variant + ": " + Files.readString(stage.resolve("script.log")));
        String lbnlOut = Files.readString(out.resolve("lbnl.out"), StandardCharsets.UTF_8);
        String nhcJson = Files.readString(out.resolve("nhc.json"), StandardCharsets.UTF_8);
        assertTrue(nhcJson.startsWith("{\"node\""), file + " " + variant + ": nhc gave no verdict: " + nhcJson
                + Files.readString(out.resolve("nhc.err")));
        Map<String, String[]> checks = nhcChecks(nhcJson);
        List<LbnlVerdicts.Ran> ran = LbnlVerdicts.parse(lbnlOut);
        Map<Integer, Seen> seen = new HashMap<>();
        int next = 0;
        for (Entry e : r.entries()) {
            boolean lbnlRan = false;
            boolean lbnlFailed = false;
            if (e.line().separated() && next < ran.size() && ran.get(next).check().equals(e.line().check())) {
                lbnlRan = true;
                lbnlFailed = ran.get(next).failed();
                next++;
            }
            boolean nhcRan = false;
            boolean nhcFailed = false;
            for (Emitted c : e.checks()) {
                String[] st = checks.get(c.name());
                if (st != null && !st[0].equals("skipped")) {
                    nhcRan = true;
                    nhcFailed |= st[1].equals("fail");
                }
            }
            seen.put(e.line().number(), new Seen(lbnlRan, lbnlFailed, nhcRan, nhcFailed));
        }
        return seen;
    }

    /** Each check's status and severity from nhc run --json. */
    private static Map<String, String[]> nhcChecks(String json) {
        Map<String, String[]> out = new HashMap<>();
        Matcher m = Pattern.compile("\\{\"name\":\"([^\"]+)\",\"probe\":\"[^\"]+\",\"tags\":\\[[^]]*],\"status\":\"([a-z_]+)\",\"severity\":\"([a-z]+)\"")
                .matcher(json);
        while (m.find()) {
            out.put(m.group(1), new String[] {m.group(2), m.group(3)});
        }
        return out;
    }

    /** The imported config with the fake node's root, a state directory and the fake NVML in its settings. */
    private static String withSettings(String yaml, Path root, Path state) {
        String mine = "  root: " + root + "\n  state_dir: " + state + "\n  nvml_library: " + System.getProperty("nhc.fakeNvml") + "\n";
        if (yaml.contains("\nsettings:\n")) {
            return yaml.replace("\nsettings:\n", "\nsettings:\n" + mine);
        }
        return yaml.replaceFirst("(?m)^nhc: 1$", "nhc: 1\nsettings:\n" + mine.replace("$", "\\$"));
    }

    /** Eight healthy GPUs for the fake NVML, or one fallen off the bus. */
    private static String nvml(boolean healthy) {
        StringBuilder gpus = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            gpus.append(i == 0 ? "" : ", ").append("{ \"name\": \"NVIDIA H100 80GB HBM3\", \"uuid\": \"GPU-").append(i)
                    .append("\", \"pci_bus_id\": \"00000000:").append(String.format("%02X", 0x19 + i)).append(":00.0\", \"persistence_mode\": true")
                    .append(!healthy && i == 3 ? ", \"returns\": { \"nvmlDeviceGetUUID\": 15, \"nvmlDeviceGetName\": 15 }" : "").append(" }");
        }
        return "{ \"driver_version\": \"535.161.08\", \"gpus\": [ " + gpus + " ] }";
    }
}
