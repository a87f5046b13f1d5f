package dev.nhc.cli;

import dev.nhc.engine.policy.ExitCodes;
import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.util.concurrent.Callable;

@Command(name = "version", description = "Print nhc's version and the Java runtime it runs on.")
final class VersionCommand implements Callable<Integer> {
    /** Where it prints (see {@link Streams}): null when nhc calls it without picocli. */
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;
    private Streams io;

    @Override
    public Integer call() {
        io = Streams.of(spec);
        String v = Main.class.getPackage().getImplementationVersion();
        io.out().println("nhc " + (v == null ? "(development build)" : v) + " on Java " + System.getProperty("java.runtime.version")
                + " (" + System.getProperty("java.vm.name") + ")");
        return ExitCodes.OK;
    }
}
