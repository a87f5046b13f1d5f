package dev.nhc.checks.host;

import dev.nhc.checks.DecimalDigits;
import dev.nhc.engine.files.CurrentProcess;
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

/**
 * {@code process}: a named process is running (or is not), optionally as a given user. Scans
 * /proc/[pid]: the name matches {@code comm} (the kernel truncates it to 15 characters) or the
 * basename of argv[0] from {@code cmdline}; the user matches the real or effective uid from
 * {@code status}. Zombies do not count as running. It observes how many match and their pids;
 * whether that is too few or too many is its default rules'.
 */
public final class ProcessProbe implements Probe {
    private static final int COMM_MAX = 15;
    private static final int PIDS_SHOWN = 10;

    static final ParamSpec<String> NAME = ParamSpec.text("name", "process name as in /proc/PID/comm or argv[0]'s basename").required();
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
            .param(USER)
            .param(STATE)
            .param(MIN_COUNT)
            .field("count", Unit.COUNT, "matching processes (zombies excluded)")
            .field("pids", Unit.TEXT, "their pids, lowest first, at most " + PIDS_SHOWN + " (absent when none)")
            .optional("pids")
            .rule(DefaultRule.fail(Map.of("count", 0), "process {entity} not running").when("state", "present"))
            .rule(DefaultRule.fail(Map.of("count", "< {with.min_count}"),
                    "only {count} of {with.min_count} process {entity} running (pids {pids})").when("state", "present"))
            .rule(DefaultRule.fail(Map.of("count", "> 0"), "process {entity} is running but should not be (pids {pids})")
                    .when("state", "absent"))
            .build();

    @Override
    public ProbeSpec spec() {
        return SPEC;
    }

    @Override
    public ProbeResult probe(ProbeContext ctx) throws IOException {
        Params p = ctx.params();
        String name = NAME.get(p);
        String user = USER.get(p);
        String label = user == null ? name : name + " (user " + user + ")";
        Entity entity = Entity.of(Entity.Kind.PROCESS, label);
        Long uid = null;
        if (user != null) {
            uid = Users.uidOf(ctx, user);
            if (uid == null) {
                return ProbeResult.of(Observation.unreadable(entity, "no user '" + user + "' in " + ctx.sys("/etc/passwd")));
            }
        }
        List<Long> pids = scan(ctx, name, uid);
        return ProbeResult.of(Observation.of(entity).put("count", (long) pids.size()).put("pids", list(pids)).build());
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

    static List<Long> scan(ProbeContext ctx, String name, Long uid) throws IOException {
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
                    if (matches(dir, name, uid)) {
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

    private static boolean matches(Path dir, String name, Long uid) throws IOException {
        String comm = Files.readString(dir.resolve("comm"), StandardCharsets.UTF_8).strip();
        boolean named = comm.equals(name) || (name.length() > COMM_MAX && comm.equals(name.substring(0, COMM_MAX)))
                || name.equals(argv0(dir));
        if (!named) {
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

    private static String argv0(Path dir) {
        try {
            byte[] b = Files.readAllBytes(dir.resolve("cmdline"));
            int end = 0;
            while (end < b.length && b[end] != 0) {
                end++;
            }
            String a = new String(b, 0, end, StandardCharsets.UTF_8);
            int slash = a.lastIndexOf('/');
            return slash >= 0 ? a.substring(slash + 1) : a;
        } catch (IOException e) {
            return "";
        }
    }
}
