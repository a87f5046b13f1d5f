package dev.nhc.cli;

import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintWriter;

/**
 * Where a command prints: its CommandLine's out and err (what a test sets with setOut and setErr),
 * or stdout and stderr when nhc calls the command without picocli (a plain {@code nhc run} and
 * {@code nhc -V}, which skip building picocli's model to start fast). Both flush at each line; a
 * command that prints without a line end flushes itself.
 */
record Streams(PrintWriter out, PrintWriter err) {
    static Streams of(CommandSpec spec) {
        if (spec == null) {
            return new Streams(new PrintWriter(System.out, true), new PrintWriter(System.err, true));
        }
        CommandLine c = spec.commandLine();
        return new Streams(c.getOut(), c.getErr());
    }
}
