package dev.nhc.checks.host;

import dev.nhc.checks.DecimalDigits;
import dev.nhc.engine.config.Ownership;
import dev.nhc.engine.files.CurrentProcess;
import dev.nhc.engine.files.UntrustedPathException;
import dev.nhc.engine.process.ProcessRunner;
import dev.nhc.engine.process.TrustedCommand;
import dev.nhc.model.Entity;
import dev.nhc.model.Observation;
import dev.nhc.probe.DefaultRule;
import dev.nhc.probe.ParamSpec;
import dev.nhc.probe.Params;
import dev.nhc.probe.Probe;
import dev.nhc.probe.ProbeContext;
import dev.nhc.probe.ProbeResult;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.probe.Tags;
import dev.nhc.units.Unit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.regex.Pattern;

/**
 * {@code process}: a named process is running (or is not), optionally as a given user. Scans
 * /proc/[pid]: {@code name} matches {@code comm} (the kernel truncates it to 15 characters) or the
 * basename of argv[0] from {@code cmdline}; {@code argv0} and {@code cmdline} are globs over the
 * command line as ps(1) shows it (the arguments joined by blanks, "[comm]" for a kernel thread),
 * which is what LBNL NHC's {@code check_ps_service} and {@code check_ps_daemon} match. The user
 * matches the real or effective uid from {@code status}. Zombies do not count as running. It
 * observes how many match and their pids; whether that is too few or too many is its default rules'.
 *
 * <p>{@code action} is the one thing a probe does besides observing, and only when the config opts in
 * ({@code settings.run_actions: true}; off by default, nhc then only observes): when the check finds
 * what it fails on (no matching process, or one that must not run), the command is run once, like a
 * {@code command} check's (root's program, clean environment, bounded by the check's time), and what
 * it did is observed. The check still fails this run, as LBNL NHC's {@code check_ps_service -S} and
 * {@code -E} do; the next run sees whether the action worked.
 */
public final class ProcessProbe implements Probe {
    private static final int PIDS_SHOWN = 10;

    static final ParamSpec<String> NAME = ParamSpec.text("name", "process name as in /proc/PID/comm or argv[0]'s basename");
    static final ParamSpec<List<Pattern>> ARGV0 = ParamSpec.globs("argv0",
            "instead of name: glob the first word of the command line must match, as ps shows it (e.g. \"*sshd:\" for OpenSSH's "
                    + "\"sshd: /usr/sbin/sshd -D\"; LBNL's check_ps_service matches *DAEMON there)");
    static final ParamSpec<List<Pattern>> CMDLINE = ParamSpec.globs("cmdline",
            "instead of name: glob the whole command line must match, as ps shows it with the arguments joined by single blanks "
                    + "(e.g. \"*munged*\"; LBNL's check_ps_daemon looks for its name anywhere in it)");
    static final ParamSpec<List<String>> ACTION = ParamSpec.texts("action",
            "command to run when the check finds what it fails on (no process for state present, one for absent), e.g. "
                    + "[systemctl, start, sshd]; only with settings.run_actions: true (off by default: nhc only observes)");
    static final ParamSpec<String> USER = ParamSpec.text("user", "user name or uid it must run as");
    static final ParamSpec<String> STATE = ParamSpec.choice("state", "whether it must run or must not", "present", "absent")
            .defaultValue("present");
    static final ParamSpec<Long> MIN_COUNT = ParamSpec.integer("min_count", "how many must run when present")
            .defaultValue(1L)
            .check(n -> n < 1 ? "must be at least 1 (for a process that must not run, write state: absent)" : null);

    private static final ProbeSpec SPEC = ProbeSpec.builder("process", "a named process is running (or not), optionally as a user")
            .tags(Tags.HOST)
            .entities(Entity.Kind.PROCESS, "the process name (with its user)")
            .param(NAME)
            .param(ARGV0)
            .param(CMDLINE)
            .param(USER)
            .param(STATE)
            .param(MIN_COUNT)
            .param(ACTION)
            .paramsCheck(p -> (p.given(NAME.name()) ? 1 : 0) + (p.given(ARGV0.name()) ? 1 : 0) + (p.given(CMDLINE.name()) ? 1 : 0) != 1
                    ? "give exactly one of 'name', 'argv0' or 'cmdline'" : null)
            .field("count", Unit.COUNT, "matching processes (zombies excluded)")
            .field("pids", Unit.TEXT, "their pids, lowest first, at most " + PIDS_SHOWN + " (absent when none)")
            .field("action", Unit.TEXT, "with 'action', when the check fails: the command run and how it ended, or why it was not run")
            .optional("pids", "action")
            .rule(DefaultRule.fail(AllOf.of("count", 0, "action", "~ ."), "process {entity} not running; {action}").when("state", "present"))
            .rule(DefaultRule.fail(Map.of("count", 0), "process {entity} not running").when("state", "present"))
            .rule(DefaultRule.fail(Map.of("count", "< {with.min_count}"),
                    "only {count} of {with.min_count} process {entity} running (pids {pids})").when("state", "present"))
            .rule(DefaultRule.fail(AllOf.of("count", "> 0", "action", "~ ."), "process {entity} is running but should not be (pids {pids}); {action}")
                    .when("state", "absent"))
            .rule(DefaultRule.fail(Map.of("count", "> 0"), "process {entity} is running but should not be (pids {pids})")
                    .when("state", "absent"))
            .build();

    @Override
    public ProbeSpec spec() {
        return SPEC;
    }

    private final BooleanSupplier runningAsRoot;

    public ProcessProbe() {
        this(Ownership::runningAsRoot);
    }

    ProcessProbe(BooleanSupplier runningAsRoot) {
        this.runningAsRoot = runningAsRoot;
    }

    @Override
    public ProbeResult probe(ProbeContext ctx) throws IOException, InterruptedException {
        Params p = ctx.params();
        ProcessMatch match = ProcessMatch.of(NAME.get(p), ARGV0.get(p), CMDLINE.get(p));
        String user = USER.get(p);
        String label = user == null ? match.label() : match.label() + " (user " + user + ")";
        Entity entity = Entity.of(Entity.Kind.PROCESS, label);
        Long uid = null;
        if (user != null) {
            uid = Users.uidOf(ctx, user);
            if (uid == null) {
                return ProbeResult.of(Observation.unreadable(entity, "no user '" + user + "' in " + ctx.sys("/etc/passwd")));
            }
        }
        List<Long> pids = scan(ctx, match, uid);
        Observation.Builder o = Observation.of(entity).put("count", (long) pids.size()).put("pids", list(pids));
        List<String> action = ACTION.get(p);
        if (action != null && pids.isEmpty() == "present".equals(STATE.get(p))) {
            o.put("action", act(ctx, action));
        }
        return ProbeResult.of(o.build());
    }

    /** Runs the action when the config allows it; what happened, in words. */
    private String act(ProbeContext ctx, List<String> argv) throws InterruptedException {
        String shown = String.join(" ", argv);
        if (!Boolean.TRUE.equals(ctx.setting("run_actions"))) {
            return "not run: '" + shown + "' runs only with settings.run_actions: true";
        }
        try (TrustedCommand cmd = TrustedCommand.prepare(argv, runningAsRoot.getAsBoolean())) {
            ProcessRunner.Result r = cmd.runner().mergeStderr().timeout(ProcessRunner.within(ctx.remaining())).run();
            if (r.timedOut()) {
                return "ran '" + shown + "': did not finish in time, killed";
            }
            return "ran '" + shown + "': exit " + r.exitCode() + (r.exitCode() != 0 && !r.firstLine().isEmpty() ? ": " + r.firstLine() : "");
        } catch (TrustedCommand.NotFoundException e) {
            return "not run: " + argv.get(0) + " " + e.getMessage();
        } catch (UntrustedPathException e) {
            return "not run: refusing to run " + argv.get(0) + " as root: " + e.getMessage();
        } catch (ProcessRunner.StartFailure e) {
            return "not run: cannot run " + shown + ": " + e.reason();
        } catch (IOException e) {
            return "not run: cannot check who can change " + argv.get(0) + ": " + e.getMessage();
        }
    }

    /** "812, 900", the first ten and "…" after them; null when there are none (the field is then absent). */
    private static String list(List<Long> pids) {
        if (pids.isEmpty()) {
            return null;
        }
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < pids.size() && i < PIDS_SHOWN; i++) {
            s.append(i == 0 ? "" : ", ").append(pids.get(i));
        }
        return pids.size() > PIDS_SHOWN ? s.append(", …").toString() : s.toString();
    }

    static List<Long> scan(ProbeContext ctx, ProcessMatch match, Long uid) throws IOException {
        Path proc = ctx.sys("/proc");
        boolean realProc = proc.equals(Path.of("/proc"));
        long self = CurrentProcess.pid();
        List<Long> found = new ArrayList<>();
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(proc, e -> DecimalDigits.only(e.getFileName().toString()))) {
            for (Path dir : dirs) {
                long pid = Long.parseLong(dir.getFileName().toString());
                if (realProc && pid == self) {
                    continue;
                }
                try {
                    if (matches(dir, match, uid)) {
                        found.add(pid);
                    }
                } catch (IOException gone) {
                    // The process exited while we looked: it is not running.
                }
            }
        } catch (IOException e) {
            throw new IOException("cannot list " + proc + ": " + e.getMessage());
        }
        found.sort(null);
        return found;
    }

    private static boolean matches(Path dir, ProcessMatch match, Long uid) throws IOException {
        String comm = Files.readString(dir.resolve("comm"), StandardCharsets.UTF_8).strip();
        byte[] cmdline = readCmdline(dir);
        if (!match.matches(comm, cmdline)) {
            return false;
        }
        boolean uidOk = uid == null;
        for (String line : Files.readAllLines(dir.resolve("status"), StandardCharsets.UTF_8)) {
            if (line.startsWith("State:") && line.substring(6).strip().startsWith("Z")) {
                return false;
            }
            if (line.startsWith("Uid:") && uid != null) {
                String[] f = line.substring(4).strip().split("\\s+");
                uidOk = (f.length > 0 && f[0].equals(uid.toString())) || (f.length > 1 && f[1].equals(uid.toString()));
            }
        }
        return uidOk;
    }

    private static byte[] readCmdline(Path dir) {
        try {
            return Files.readAllBytes(dir.resolve("cmdline"));
        } catch (IOException e) {
            return new byte[0];
        }
    }
}
