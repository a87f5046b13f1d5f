package dev.nhc.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code nhc completion bash}, loaded into a real bash and asked for completions the way the shell asks. */
class CompletionIT {
    @TempDir
    Path dir;

    /** Sources the script, sets the words typed so far, calls the completion function, prints its answers. */
    private List<String> complete(Path script, String... words) throws Exception {
        StringBuilder arr = new StringBuilder();
        for (String w : words) {
            arr.append(" '").append(w).append('\'');
        }
        String program = "source '" + script + "'\n"
                + "COMP_WORDS=(" + arr + ")\nCOMP_CWORD=" + (words.length - 1) + "\n"
                + "COMP_LINE=\"${COMP_WORDS[*]}\"\nCOMP_POINT=${#COMP_LINE}\n"
                + "_complete_nhc nhc \"${COMP_WORDS[COMP_CWORD]}\" \"${COMP_WORDS[COMP_CWORD-1]}\"\n"
                + "printf '%s\\n' \"${COMPREPLY[@]}\"\n";
        Process p = new ProcessBuilder("bash", "--norc", "--noprofile", "-c", program)
                .redirectError(dir.resolve("bash.err").toFile()).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "bash did not finish");
        assertEquals(0, p.exitValue(), "bash: " + Files.readString(dir.resolve("bash.err")));
        return out.lines().map(String::trim).filter(s -> !s.isEmpty()).toList();
    }

    private Path script() throws Exception {
        NhcProcess.Result r = NhcProcess.run(dir, Map.of(), "completion", "bash");
        assertEquals(0, r.exit(), r.err());
        assertEquals("", r.err());
        assertTrue(r.out().contains("complete -F _complete_nhc"), "a bash completion script: " + r.out().lines().limit(5).toList());
        Path script = dir.resolve("nhc.bash");
        Files.writeString(script, r.out());
        return script;
    }

    @Test
    void bashCompletesSubcommandsAndTheirOptions() throws Exception {
        Path script = script();
        List<String> commands = complete(script, "nhc", "");
        assertTrue(commands.containsAll(List.of("run", "replay", "daemon", "check-config", "list", "clear", "version", "completion")),
                commands.toString());
        assertEquals(List.of("check-config"), complete(script, "nhc", "che"));
        List<String> runOptions = complete(script, "nhc", "run", "--");
        assertTrue(runOptions.containsAll(List.of("--verbose", "--json", "--only", "--slurm", "--config")), runOptions.toString());
        assertFalse(runOptions.contains("--nvidia-smi-q"), "replay's options are not run's: " + runOptions);
    }

    @Test
    void anotherShellIsRefusedByName() throws Exception {
        NhcProcess.Result r = NhcProcess.run(dir, Map.of(), "completion", "fish");
        assertEquals(2, r.exit(), r.out() + r.err());
        assertTrue(r.err().contains("unsupported shell 'fish'"), r.err());
        assertEquals("", r.out());
    }
}
