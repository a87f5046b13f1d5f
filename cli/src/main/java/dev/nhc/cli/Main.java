package dev.nhc.cli;

import dev.nhc.engine.policy.ExitCodes;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code nhc} command: subcommands, exit codes, and nothing loaded that a one-shot run does not use. */
@Command(name = "nhc",
        mixinStandardHelpOptions = false,
        synopsisSubcommandLabel = "COMMAND",
        description = {
                "nhc checks a node of a GPU cluster - disks, memory, processes, and the GPUs through NVML, "
                        + "DCGM and the kernel log - against the checks declared in a YAML config, and turns the "
                        + "verdict into what the scheduler understands: Slurm's DRAIN, FAIL and RESUME, or dstack's "
                        + "healthy, warning and failure.",
                ""},
        subcommands = {RunCommand.class, ReplayCommand.class, BacktestCommand.class, DaemonCommand.class, CheckConfigCommand.class, ListCommand.class, ClearCommand.class,
                ImportLbnlCommand.class, VersionCommand.class, CompletionCommand.class, CommandLine.HelpCommand.class},
        footerHeading = "%nExit codes:%n",
        footer = {
                "  0  every check passed, or some only warned (or could not decide)",
                "  1  at least one check failed (or the Slurm circuit breaker refused to drain)",
                "  2  the config or the command line is invalid; nothing was done",
                "  3  nhc itself could not run (a bug, or an environment it cannot work in); nothing was done",
                "",
                "Files:",
                "  /etc/nhc/nhc.yaml     the default config",
                "  /var/lib/nhc          state kept between runs (settings.state_dir)",
                "",
                "See 'nhc help COMMAND' for each command, and 'nhc list' for every probe with its fields and default rules."})
public final class Main implements Runnable {

    @CommandLine.Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help.")
    boolean help;

    @CommandLine.Option(names = {"-V", "--version"}, description = "Print nhc's version and the Java it runs on (as 'nhc version').")
    boolean version;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** {@link ExitCodes#FAIL} as the JVM's status under bin/nhc, which alone tells it from a JVM that could not start (also 1). */
    static final int FAIL_VIA_LAUNCHER = 101;

    public static void main(String[] args) {
        int code = run(args);
        // Run by bin/nhc: "a check failed" gets its own status, since a JVM that cannot start exits 1 too;
        // the launcher turns it back into 1 and anything else the JVM ends with into 3 (see bin/nhc).
        System.exit(code == ExitCodes.FAIL && System.getProperty("nhc.launcher") != null ? FAIL_VIA_LAUNCHER : code);
    }

    /**
     * Runs nhc with these arguments and returns the exit code (tests call this in-process). With
     * {@code --json}, stdout gets exactly one JSON object whatever happens (see {@link JsonOnError}).
     */
    public static int run(String... args) {
        JsonOnError json = JsonOnError.watch(args);
        int code;
        try {
            code = execute(args);
        } catch (Throwable t) {
            // Errors (a broken site jar, a missing class) bypass picocli's handler; the contract still holds.
            System.err.println(internalError(t));
            code = ExitCodes.INTERNAL;
        }
        return json == null ? code : json.finish(code);
    }

    /** A plain {@code nhc run} skips picocli (see {@link RunArgs}); everything else goes through it. */
    private static int execute(String... args) {
        if (args.length == 0) {
            // No command is a mistake, not a request for help: the help goes where errors go, and the exit code says so.
            HelpLayout.commandLine(new Main()).usage(System.err);
            return ExitCodes.INVALID;
        }
        if (args.length == 1 && (args[0].equals("--version") || args[0].equals("-V"))) {
            return new VersionCommand().call();
        }
        if (args[0].equals("run")) {
            RunCommand fast = RunArgs.parse(java.util.Arrays.copyOfRange(args, 1, args.length));
            if (fast != null) {
                try {
                    return fast.call();
                } catch (RuntimeException e) {
                    System.err.println(internalError(e));
                    return ExitCodes.INTERNAL;
                }
            }
        }
        CommandLine cl = subcommandAlone(args);
        String[] rest = args;
        if (cl != null) {
            rest = java.util.Arrays.copyOfRange(args, 1, args.length);
        } else {
            cl = HelpLayout.commandLine(new Main());
        }
        cl.setExecutionExceptionHandler((ex, cmd, parsed) -> {
            cmd.getErr().println(internalError(ex));
            return ExitCodes.INTERNAL;
        });
        cl.setParameterExceptionHandler((ex, strings) -> {
            CommandLine c = ex.getCommandLine();
            c.getErr().println("nhc: " + ex.getMessage());
            CommandLine.UnmatchedArgumentException.printSuggestions(ex, c.getErr());
            c.getErr().println("Try '" + c.getCommandSpec().qualifiedName() + " --help'.");
            return ExitCodes.INVALID;
        });
        return cl.execute(rest);
    }

    /** A throwable as a user reads it: its kind and message, on one line. */
    static String describe(Throwable t) {
        String m = t.getMessage();
        return t.getClass().getSimpleName() + (m == null ? "" : ": " + m.replace('\n', ' '));
    }

    private static String internalError(Throwable t) {
        return "nhc: internal error: " + Main.describe(t) + " (please report this; nothing was done)";
    }

    /**
     * picocli builds its model by reflection over every annotated command, ~100 ms on a cold JVM.
     * A one-shot {@code nhc run} only needs the run command's model, so a known subcommand is
     * built alone; everything else (help, no arguments, typos) gets the whole tree.
     */
    private static CommandLine subcommandAlone(String[] args) {
        if (args.length > 0) {
            Object sub = switch (args[0]) {
                case "run" -> new RunCommand();
                case "replay" -> new ReplayCommand();
                case "backtest" -> new BacktestCommand();
                case "daemon" -> new DaemonCommand();
                case "check-config" -> new CheckConfigCommand();
                case "list" -> new ListCommand();
                case "clear" -> new ClearCommand();
                case "import-lbnl" -> new ImportLbnlCommand();
                case "version" -> new VersionCommand();
                case "completion" -> new CompletionCommand();
                default -> null;
            };
            if (sub != null) {
                CommandLine cl = HelpLayout.commandLine(sub);
                cl.setCommandName("nhc " + args[0]);
                return cl;
            }
        }
        return null;
    }

    @Override
    public void run() {
        if (version) {
            new VersionCommand().call();
            return;
        }
        spec.commandLine().usage(spec.commandLine().getOut());
    }
}
