package dev.nhc.scripts;

import dev.nhc.model.Finding;
import dev.nhc.model.Severity;
import dev.nhc.model.Verdict;
import dev.nhc.rules.testing.Pipeline;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** script and script.js as a config declares them, through the real config loader, runner and severity policy. */
class ScriptsThroughRunnerTest {
    @TempDir
    Path tmp;

    @Test
    void aJsRuleSeesTheObservationsOfTheChecksThatRanBeforeIt() throws Exception {
        Path slow = tmp.resolve("slow.sh");
        // the script finishes after the JS check would have started, were they run side by side
        Files.writeString(slow, "#!/bin/sh\nsleep 1\necho 'link flapping'\nexit 1\n");
        Files.setPosixFilePermissions(slow, PosixFilePermissions.fromString("rwxr-xr-x"));
        String yaml = """
                - name: js
                  use: script.js
                  timeout: 40s        # a cold GraalJS load on a busy 2-core CI machine takes seconds
                  with:
                    vars: { min_exit: 1 }
                    source: |
                      const ib = observations.ib && observations.ib.node;
                      ib && ib.exit_code >= vars.min_exit
                        ? [{severity: 'warn', message: 'ib script exited ' + ib.exit_code + ' on ' + node}]
                        : [{severity: 'unknown', message: 'no ib observations: ' + JSON.stringify(observations)}];
                - name: ib
                  use: script
                  with: { command: [%s], env: { SITE: a } }
                """.formatted(slow);
        Verdict v = new Pipeline(tmp, new ScriptJsProbe(() -> false), new ScriptProbe(() -> false)).node("node007").run(yaml);
        List<Finding> problems = Pipeline.findings(v, "js").stream().filter(f -> f.severity() != Severity.PASS).toList();
        assertEquals(List.of("ib script exited 1 on node007"), problems.stream().map(Finding::message).toList());
        assertEquals("link flapping", Pipeline.only(v, "ib").message()); // the script's own nhc-convention failure
        assertEquals(Severity.FAIL, v.severity());
    }
}
