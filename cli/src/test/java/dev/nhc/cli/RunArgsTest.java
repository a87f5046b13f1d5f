package dev.nhc.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/** The fast reading of {@code nhc run}'s arguments must agree with picocli wherever it answers at all. */
class RunArgsTest {

    /** Everything a parse sets, in one comparable line. */
    private static String fields(RunCommand c) {
        return "config=" + c.config.file + " verbose=" + c.verbose + " json=" + c.json + " only=" + c.only + " slurm=" + c.slurm
                + " nvml=" + c.overrides.nvmlLibrary + " hostname=" + c.overrides.hostname + " stateDir=" + c.overrides.stateDir;
    }

    private static String viaPicocli(String... args) {
        RunCommand c = new RunCommand();
        new CommandLine(c).parseArgs(args);
        return fields(c);
    }

    private static void assertAgrees(String... args) {
        RunCommand fast = RunArgs.parse(args);
        assertNotNull(fast, () -> "fast path declined " + List.of(args));
        assertEquals(viaPicocli(args), fields(fast), () -> "for " + List.of(args));
    }

    @Test
    void readsWhatSlurmdAndAdminsTypeExactlyAsPicocliDoes() {
        assertAgrees();
        assertAgrees("-c", "/etc/nhc/site.yaml");
        assertAgrees("--config", "a.yaml", "-v");
        assertAgrees("--config=a.yaml", "--verbose", "--json");
        assertAgrees("--only", "root-fs", "gpu-ecc", "--slurm");
        assertAgrees("-v", "--only", "one");
        assertAgrees("--hostname", "gpu-001", "--state-dir", "/tmp/s", "--nvml-library", "/opt/lib/libnvidia-ml.so.1");
        assertAgrees("--hostname=gpu-001", "--state-dir=/tmp/s", "--nvml-library=/x.so", "--json");
    }

    @Test
    void defaultsToTheSystemConfig() {
        assertEquals("/etc/nhc/nhc.yaml", RunArgs.parse(new String[0]).config.file.toString());
    }

    /** Help, typos, repeats, missing values and unusual spellings are picocli's to answer, with its messages. */
    @ParameterizedTest
    @ValueSource(strings = {"--help", "-h", "-vc x", "--config", "-c a -c b", "-v -v", "--only", "--only -v", "--bogus",
            "-- x", "positional", "--json=true", "-c= x", "-c=x", "--hostname", "--state-dir -v", "--only=a", "-cx"})
    void leavesEverythingElseToPicocli(String line) {
        assertNull(RunArgs.parse(line.split(" ")), line);
    }

    @Test
    void coversEveryOptionOfTheRunCommand() {
        CommandLine.Model.CommandSpec spec = new CommandLine(new RunCommand()).getCommandSpec();
        for (OptionSpec o : spec.options()) {
            if (o.usageHelp()) {
                continue;
            }
            for (String name : o.names()) {
                if (o.typeInfo().isBoolean()) {
                    assertAgrees(name);
                } else {
                    assertAgrees(name, "value");
                }
            }
        }
    }

    /** Random argument lines from run's vocabulary: wherever the fast path answers, picocli answers the same. */
    @Test
    void agreesWithPicocliOnRandomLines() {
        String[] pool = {"-c", "--config", "--config=x.yaml", "-v", "--verbose", "--json", "--only", "--slurm", "--hostname",
                "--hostname=h", "--state-dir", "--nvml-library", "a", "b.yaml", "/p/q", "-x", "--", "--help", ""};
        Random random = new Random(42);
        int answered = 0;
        for (int n = 0; n < 3000; n++) {
            List<String> line = new ArrayList<>();
            int len = random.nextInt(7);
            for (int i = 0; i < len; i++) {
                line.add(pool[random.nextInt(pool.length)]);
            }
            String[] args = line.toArray(String[]::new);
            RunCommand fast = RunArgs.parse(args);
            if (fast != null) {
                answered++;
                assertEquals(viaPicocli(args), fields(fast), () -> "for " + line);
            }
        }
        // The generator must exercise the fast path, or this test proves nothing.
        org.junit.jupiter.api.Assertions.assertTrue(answered > 300, "fast path answered only " + answered + " lines");
    }
}
