package dev.nhc.cli;

import dev.nhc.engine.policy.ExitCodes;
import picocli.CommandLine.Command;

import java.util.concurrent.Callable;

@Command(name = "version", description = "Print nhc's version and the Java runtime it runs on.")
final class VersionCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        String v = Main.class.getPackage().getImplementationVersion();
        System.out.println("nhc " + (v == null ? "(development build)" : v) + " on Java " + System.getProperty("java.runtime.version")
                + " (" + System.getProperty("java.vm.name") + ")");
        return ExitCodes.OK;
    }
}
