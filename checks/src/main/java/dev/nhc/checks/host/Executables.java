package dev.nhc.checks.host;

import dev.nhc.engine.config.Ownership;
import dev.nhc.engine.files.UntrustedPathException;
import dev.nhc.engine.process.ProcessRunner;
import dev.nhc.engine.process.TrustedCommand;

import java.io.IOException;
import java.util.List;
import java.util.Map;

/**
 * The tools probes run themselves (systemctl, journalctl, dcgmi) go through the same rules as a
 * {@code command} check's program ({@link TrustedCommand}): a bare name is looked up in the system
 * directories only (never the caller's PATH: slurmd runs nhc with almost no environment, and
 * nhc-slurm puts /usr/local first; never /usr/local, which is not always root's alone); as root the
 * program and every directory on its path must be root's and writable by no one else; it runs with
 * a clean environment (PATH the system directories, LANG=C for output the probe parses).
 */
public final class Executables {
    private Executables() {
    }

    /** A tool that cannot be run: not found, or not one root may run. The message names it and says why. */
    public static final class Unusable extends Exception {
        private static final long serialVersionUID = 1L;
        private final boolean notFound;

        Unusable(String message, boolean notFound) {
            super(message, null, false, false);
            this.notFound = notFound;
        }

        /** Not there or not executable (as opposed to refused as root, or not checkable). */
        public boolean notFound() {
            return notFound;
        }
    }

    /**
     * Finds, checks and opens {@code argv}'s program (a path, or a name in the system
     * directories). Close the result after the program has ended.
     */
    public static TrustedCommand prepare(List<String> argv) throws Unusable {
        return prepare(argv, Ownership.runningAsRoot());
    }

    static TrustedCommand prepare(List<String> argv, boolean asRoot) throws Unusable {
        String tool = argv.get(0);
        try {
            return TrustedCommand.prepare(argv, asRoot);
        } catch (TrustedCommand.NotFoundException e) {
            return fail(tool.contains("/") ? tool + " not found or not executable" : tool + " not found in " + searched(tool), true);
        } catch (UntrustedPathException e) {
            return fail("refusing to run " + tool + " as root: " + e.getMessage(), false);
        } catch (IOException e) {
            return fail("refusing to run " + tool + ": cannot check who can change it: " + e.getMessage(), false);
        }
    }

    private static TrustedCommand fail(String message, boolean notFound) throws Unusable {
        throw new Unusable(message, notFound);
    }

    /** A runner for the prepared tool: clean environment with LANG=C, stdin /dev/null, working directory /. */
    public static ProcessRunner runner(TrustedCommand cmd) {
        return cmd.runner().env(Map.of("LANG", "C"));
    }

    /** Where a tool is looked for, for messages and parameter descriptions. */
    public static String searched(String nameOrPath) {
        return nameOrPath.contains("/") ? nameOrPath : String.join(", ", ProcessRunner.SYSTEM_PATH.split(":"));
    }
}
