package dev.nhc.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The packaged app keeps GraalJS (lib/polyglot) and the Prometheus client (lib/daemon) off the
 * class path of one-shot runs; script.js must still find GraalJS there. The .tar.gz of the app
 * keeps what is executed executable.
 */
class PackageLayoutIT {
    @TempDir
    Path dir;

    @Test
    void oneShotClassPathHoldsNeitherGraalJsNorPrometheus() throws Exception {
        try (Stream<Path> lib = Files.list(NhcProcess.APP.resolve("lib"))) {
            lib.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".jar")).forEach(n -> {
                assertTrue(!n.startsWith("polyglot-") && !n.startsWith("truffle-") && !n.startsWith("js-language-"), n + " in lib/");
                assertTrue(!n.startsWith("prometheus-"), n + " in lib/");
            });
        }
        assertTrue(Files.exists(NhcProcess.APP.resolve("lib/polyglot")), "lib/polyglot");
        try (Stream<Path> daemon = Files.list(NhcProcess.APP.resolve("lib/daemon"))) {
            assertTrue(daemon.anyMatch(p -> p.getFileName().toString().startsWith("prometheus-metrics-core-")), "lib/daemon");
        }
    }

    @Test
    void scriptJsLoadsGraalJsFromLibPolyglot() throws Exception {
        Path c = dir.resolve("nhc.yaml");
        Files.writeString(c, "nhc: 1\nsettings: { state_dir: " + dir.resolve("state") + " }\nchecks:\n"
                + "  - { name: mem, use: memory }\n"
                + "  - name: js\n    use: script.js\n    with:\n      source: |\n"
                + "        var t = observations.mem.node.total;\n"
                + "        [{ entity: 'node', severity: t > 0 ? 'fail' : 'pass', message: 'memory seen from JavaScript' }]\n");
        NhcProcess.Result r = NhcProcess.run(dir, Map.of(), "run", "-c", c.toString());
        assertEquals(1, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains("FAIL    js: memory seen from JavaScript"), r.out());
    }

    /**
     * Every file of the .tar.gz is executable exactly when it is in the app directory. The socket
     * client once shipped 0644, so bin/nhc-slurm's {@code [ -x ]} was false in every unpacked
     * tarball and it never asked the daemon.
     */
    @Test
    void theTarballKeepsWhatIsExecutedExecutable() throws Exception {
        List<Path> tgz = new ArrayList<>();
        try (var s = Files.newDirectoryStream(NhcProcess.APP.getParent(), "nhc-*.tar.gz")) {
            s.forEach(tgz::add);
        }
        assertEquals(1, tgz.size(), tgz.toString());
        Process p = new ProcessBuilder("tar", "tvzf", tgz.get(0).toString()).redirectErrorStream(true).start();
        String listing = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0, listing);
        // "-rwxr-xr-x 0/0 16976 2026-11-25 10:52 nhc-0.1.0/lib/native/nhc-slurm-ask"
        Map<String, String> modes = new TreeMap<>();
        for (String line : listing.split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f[0].startsWith("-")) {
                modes.put(f[f.length - 1].replaceFirst("^[^/]+/", ""), f[0]);
            }
        }
        // What runs later (a first run with another Java) may add archives to the app directory: compared are the tarball's files.
        Map<String, String> expected = new TreeMap<>();
        for (String name : modes.keySet()) {
            Path f = NhcProcess.APP.resolve(name);
            boolean x = Files.getPosixFilePermissions(f).contains(PosixFilePermission.OWNER_EXECUTE);
            expected.put(name, x ? "-rwxr-xr-x" : "-rw-r--r--");
        }
        assertEquals(expected, modes);
        assertTrue(Files.exists(NhcProcess.APP.resolve("lib/native/nhc-slurm-ask")),
                "lib/native/nhc-slurm-ask was not built: is there a C compiler (the build warns)?");
        assertEquals("-rwxr-xr-x", modes.get("lib/native/nhc-slurm-ask"));
        assertEquals("-rwxr-xr-x", modes.get("bin/nhc-slurm"));
    }
}
