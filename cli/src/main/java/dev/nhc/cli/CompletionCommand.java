package dev.nhc.cli;

import dev.nhc.engine.policy.ExitCodes;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

import java.util.concurrent.Callable;

/**
 * Prints the shell completion script of the whole command tree. The packages install its output as
 * /usr/share/bash-completion/completions/nhc; it is generated from the same annotations picocli
 * parses with, so it cannot drift from the options.
 */
@Command(name = "completion", description = {"Print the completion script for a shell (bash; zsh loads it through bashcompinit).",
        "The packages install it; by hand: source <(nhc completion bash)"})
final class CompletionCommand implements Callable<Integer> {
    /** Where it prints (see {@link Streams}): null when nhc calls it without picocli. */
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;
    private Streams io;

    @Parameters(paramLabel = "SHELL", description = "The shell: bash.")
    String shell;

    @CommandLine.Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help.")
    boolean help;

    @Override
    public Integer call() {
        io = Streams.of(spec);
        if (!"bash".equals(shell)) {
            io.err().println("nhc: completion: unsupported shell '" + shell + "' (supported: bash; zsh can source it through bashcompinit)");
            return ExitCodes.INVALID;
        }
        io.out().print(AutoComplete.bash("nhc", new CommandLine(new Main())));
        io.out().flush();
        return ExitCodes.OK;
    }
}
