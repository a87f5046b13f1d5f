package dev.nhc.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Commands print through picocli's out and err, so they run in-process with what they print caught, as here. */
class CommandStreamsTest {
    @TempDir
    Path dir;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int nhc(String... args) {
        return HelpLayout.commandLine(new Main()).setOut(new PrintWriter(out, true)).setErr(new PrintWriter(err, true)).execute(args);
    }

    private Path config(String checks) throws Exception {
        return Files.writeString(dir.resolve("nhc.yaml"), "nhc: 1\nsettings:\n  root: " + dir.resolve("root") + "\n  state_dir: "
                + dir.resolve("state") + "\nchecks:\n" + checks);
    }

    @Test
    void checkConfigPrintsTheChecksOnOut() throws Exception {
        Path file = config("  - { name: klog, use: kernel.log }\n");
        assertEquals(0, nhc("check-config", "-c", file.toString()), err.toString());
        assertEquals(file + ": valid, 1 check\n  klog (kernel.log)\n", out.toString());
        assertEquals("", err.toString());
    }

    @Test
    void anInvalidConfigIsToldOnErrWithItsPlace() throws Exception {
        Path file = config("  - { name: klog, use: kernel.logg }\n");
        assertEquals(2, nhc("check-config", "-c", file.toString()));
        assertEquals("", out.toString());
        assertTrue(err.toString().contains(file + ":6:24: check 'klog': unknown probe 'kernel.logg'"), err.toString());
    }

    @Test
    void clearOfACheckThatIsNotThereIsToldOnErr() throws Exception {
        Path file = config("  - { name: klog, use: kernel.log }\n");
        assertEquals(2, nhc("clear", "-c", file.toString(), "nope"));
        assertTrue(err.toString().startsWith("nhc: clear nope: no such check in " + file), err.toString());
    }
}
