package dev.nhc.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The packaged app keeps GraalJS (lib/polyglot) and the Prometheus client (lib/daemon) off the
 * class path of one-shot runs; script.js must still find GraalJS there.
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
}
