package dev.nhc.scripts;

import dev.nhc.model.CheckResult;
import dev.nhc.model.Finding;
import dev.nhc.model.Severity;
import dev.nhc.probe.Probe;
import dev.nhc.rules.testing.DeclaredFields;
import dev.nhc.rules.testing.Pipeline;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * script and script.js report what their specs declare (see the checks module's ProbeFieldsTest):
 * the script's run on the node, and each entity its JSON findings name, the node among them.
 */
class ScriptFieldsTest {
    @TempDir
    Path tmp;

    @ParameterizedTest(name = "{0}: {1}")
    @CsvSource(delimiter = '|', value = {
        "script    | a passing nhc-convention script       | echo all good",
        "script    | a failing nhc-convention script       | echo 'mlx5_0 down'; exit 1",
        "script    | a script that prints nothing          | exit 0",
        "script    | JSON findings for the node and a GPU  | echo '{\"nhc_findings\": [{\"severity\": \"pass\", \"message\": \"ok\"}, "
                + "{\"entity\": \"GPU 3\", \"severity\": \"warn\", \"message\": \"hot\", \"remedy\": \"none\"}]}'",
        "script.js | findings for the node and a port      | [{severity: 'pass', message: 'fine'}, {entity: 'mlx5_0/1', severity: 'fail', "
                + "message: 'down', remedy: 'hardware'}]"})
    void emitsWhatItDeclares(String use, String what, String body) throws Exception {
        Probe probe = use.equals("script") ? new ScriptProbe(() -> false) : new ScriptJsProbe(() -> false);
        String with;
        if (use.equals("script")) {
            Path script = tmp.resolve("check.sh");
            Files.writeString(script, "#!/bin/sh\n" + body + "\n");
            Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
            with = "{ command: [" + script + "] }";
        } else {
            with = "{ source: \"" + body.replace("\"", "\\\"") + "\" }";
        }
        CheckResult r = Pipeline.result(new Pipeline(tmp, probe).run("- { name: x, use: " + use + ", timeout: 40s, with: " + with + " }"), "x");
        assertTrue(!r.observations().isEmpty(), what + ": observed nothing " + r);
        assertEquals(List.of(), DeclaredFields.problems(probe.spec(), r.observations(), true), what);
        for (Finding f : r.findings()) {
            assertNotEquals(Severity.UNKNOWN, f.severity(), () -> what + ": undecided on what it saw whole: " + f);
        }
    }
}
