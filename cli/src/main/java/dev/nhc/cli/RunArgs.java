package dev.nhc.cli;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;

/**
 * The arguments of {@code nhc run} read without picocli, for the one call that must start fast:
 * slurmd runs {@code nhc run} every few minutes on every node, and building picocli's model by
 * reflection costs a cold JVM ~50 ms, a third of the run. This reads only the plain spellings of
 * run's own options and gives up (null) on anything else - help, a typo, a repeated option, a
 * missing value, {@code --}, clustered flags - so that picocli, which owns every message, answers
 * those exactly as it always does. RunArgsTest holds the two to the same results.
 */
final class RunArgs {

    private RunArgs() {
    }

    /** A run command ready to call, or null when picocli must parse these arguments. */
    static RunCommand parse(String[] args) {
        RunCommand cmd = new RunCommand();
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            String name = arg;
            String inline = null;
            int eq = arg.indexOf('=');
            if (arg.startsWith("--") && eq > 2) {
                name = arg.substring(0, eq);
                inline = arg.substring(eq + 1);
            }
            String key = canonical(name);
            if (key == null || !seen.add(key)) {
                return null;
            }
            if (isFlag(key)) {
                if (inline != null) {
                    return null;
                }
                switch (key) {
                    case "--verbose" -> cmd.verbose = true;
                    case "--json" -> cmd.json = true;
                    default -> cmd.slurm = true;
                }
                continue;
            }
            if (key.equals("--only")) {
                if (inline != null) {
                    return null;
                }
                int first = i + 1;
                while (i + 1 < args.length && !args[i + 1].startsWith("-")) {
                    cmd.only.add(args[++i]);
                }
                if (i < first) {
                    return null;
                }
                continue;
            }
            String value = inline;
            if (value == null) {
                if (i + 1 >= args.length || args[i + 1].startsWith("-")) {
                    return null;
                }
                value = args[++i];
            }
            if (value.isEmpty()) {
                return null;
            }
            try {
                switch (key) {
                    case "--config" -> cmd.config.file = Path.of(value);
                    case "--hostname" -> cmd.overrides.hostname = value;
                    case "--state-dir" -> cmd.overrides.stateDir = Path.of(value);
                    default -> cmd.overrides.nvmlLibrary = Path.of(value);
                }
            } catch (InvalidPathException e) {
                return null;
            }
        }
        if (cmd.config.file == null) {
            cmd.config.file = Path.of(ConfigOption.DEFAULT);
        }
        return cmd;
    }

    private static String canonical(String name) {
        return switch (name) {
            case "-c", "--config" -> "--config";
            case "-v", "--verbose" -> "--verbose";
            case "--json", "--only", "--slurm", "--hostname", "--state-dir", "--nvml-library" -> name;
            default -> null;
        };
    }

    private static boolean isFlag(String key) {
        return key.equals("--verbose") || key.equals("--json") || key.equals("--slurm");
    }
}
