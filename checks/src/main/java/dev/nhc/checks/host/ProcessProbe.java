package dev.nhc.checks.host;

import dev.nhc.model.Finding;
import dev.nhc.model.Observation;
import dev.nhc.model.Severity;
import dev.nhc.probe.ParamSpec;
import dev.nhc.probe.ParamType;
import dev.nhc.probe.Params;
import dev.nhc.probe.Probe;
import dev.nhc.probe.ProbeContext;
import dev.nhc.probe.ProbeResult;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.engine.process.CurrentProcess;
import dev.nhc.units.Unit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code process}: a named process is running (or is not), optionally as a given user. Scans
 * /proc/[pid]: the name matches {@code comm} (the kernel truncates it to 15 characters) or the
 * basename of argv[0] from {@code cmdline}; the user matches the real or effective uid from
 * {@code status}. Zombies do not count as running.
 */
public final class ProcessProbe implements Probe {
    private static final int COMM_MAX = 15;

    private static final ProbeSpec SPEC = ProbeSpec.builder("process", "a named process is running (or not), optionally as a user")
            .entities("the process name (with its user)")
            .param(ParamSpec.required("name", ParamType.STRING, "process name as in /proc/PID/comm or argv[0]'s basename"))
            .param(ParamSpec.optional("user", ParamType.STRING, null, "user name or uid it must run as"))
            .param(ParamSpec.optional("state", ParamType.STRING, "present", "present or absent"))
            .param(ParamSpec.optional("min_count", ParamType.INTEGER, 1L, "how many must run when present"))
            .field("count", Unit.COUNT, "matching processes")
            .build();

    @Override
    public ProbeSpec spec() {
        return SPEC;
    }

    @Override
    public ProbeResult probe(ProbeContext ctx) throws IOException {
        Params p = ctx.params();
        String name = p.string("name");
        String user = p.string("user");
        String state = p.string("state") == null ? "present" : p.string("state");
        long minCount = p.has("min_count") ? p.integer("min_count") : 1;
        String entity = "process " + name + (user == null ? "" : " (user " + user + ")");
        if (!state.equals("present") && !state.equals("absent")) {
            return ProbeResult.builder().finding(Finding.of(entity, Severity.UNKNOWN,
                    "check " + ctx.checkName() + ": state must be present or absent, not '" + state + "'")).build();
        }
        Long uid = null;
        if (user != null) {
            uid = Users.uidOf(ctx, user);
            if (uid == null) {
                return ProbeResult.builder().finding(Finding.of(entity, Severity.UNKNOWN,
                        "no user '" + user + "' in " + ctx.sys("/etc/passwd"))).build();
            }
        }
        List<Long> pids = scan(ctx, name, uid);
        ProbeResult.Builder out = ProbeResult.builder().observe(Observation.of(entity).put("count", (long) pids.size()).build());
        if (state.equals("present") && pids.size() < minCount) {
            out.finding(Finding.of(entity, Severity.FAIL, pids.isEmpty()
                    ? entity + " not running"
                    : "only " + pids.size() + " of " + minCount + " " + entity + " running (pids " + list(pids) + ")"));
        } else if (state.equals("absent") && !pids.isEmpty()) {
            out.finding(Finding.of(entity, Severity.FAIL, entity + " is running but should not be (pids " + list(pids) + ")"));
        }
        return out.build();
    }

    private static String list(List<Long> pids) {
        List<String> s = new ArrayList<>();
        for (int i = 0; i < pids.size() && i < 10; i++) {
            s.add(String.valueOf(pids.get(i)));
        }
        return String.join(", ", s) + (pids.size() > 10 ? ", …" : "");
    }

    static List<Long> scan(ProbeContext ctx, String name, Long uid) throws IOException {
        Path proc = ctx.sys("/proc");
        boolean realProc = proc.equals(Path.of("/proc"));
        long self = CurrentProcess.pid();
        List<Long> found = new ArrayList<>();
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(proc, e -> isPid(e.getFileName().toString()))) {
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

    private static boolean isPid(String s) {
        if (s.isEmpty()) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            if (!Character.isDigit(s.charAt(i))) {
                return false;
            }
        }
        return true;
    }
}
