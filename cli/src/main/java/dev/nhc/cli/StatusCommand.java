package dev.nhc.cli;

import com.fasterxml.jackson.jr.ob.JSON;
import dev.nhc.daemon.DaemonClient;
import dev.nhc.daemon.DaemonSettings;
import dev.nhc.engine.plan.Plan;
import dev.nhc.slurm.SlurmRecord;
import dev.nhc.slurm.SlurmSection;
import dev.nhc.slurm.SlurmSettings;
import dev.nhc.slurm.history.History;
import dev.nhc.slurm.repair.RepairRecord;
import dev.nhc.slurm.repair.RepairSettings;
import dev.nhc.engine.policy.ExitCodes;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

@Command(name = "status", description = {"Show what nhc holds on this node and why: the state and reason it set in Slurm, "
        + "since when, a change Slurm did not take yet, the repair ladder's rung and its reboots, the last verdict "
        + "it recorded, and the daemon's latest verdict when one runs.",
        "Reads nhc's state; changes nothing and asks Slurm nothing."})
final class StatusCommand implements Callable<Integer> {
    @Mixin
    ConfigOption config = new ConfigOption();

    @Mixin
    StateDirOption stateDir = new StateDirOption();

    @Option(names = "--json", description = "Print exactly one JSON object: node, slurm, repair, last_verdict, daemon.")
    boolean json;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help.")
    boolean help;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        StateDirOption.Opened state = stateDir.open(config, spec.commandLine().getErr());
        if (state.exitCode() != null) {
            return state.exitCode();
        }
        Plan plan = state.plan();
        if (state.store() == null) {
            return print(plan, state.dir(), null, null);
        }
        SlurmRecord record = SlurmRecord.read(state.store().section(SlurmSection.KEY));
        List<History.Entry> history = History.read(state.store().section(History.SECTION)).entries();
        History.Entry lastVerdict = history.stream().filter(e -> e.event() == History.Event.VERDICT).reduce((a, b) -> b).orElse(null);
        return print(plan, state.dir(), record, lastVerdict);
    }

    private int print(Plan plan, Path dir, SlurmRecord record, History.Entry lastVerdict) throws IOException {
        RepairSettings repair = plan.config().hasSection(SlurmSection.KEY)
                ? SlurmSettings.from(plan.config().section(SlurmSection.KEY), System.getenv()).repair() : RepairSettings.OFF;
        Map<String, Object> daemon = daemon(plan);
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("node", record == null ? null : record.node());
            m.put("state_dir", dir.toString());
            m.put("slurm", record == null ? null : slurm(record));
            m.put("repair", record == null || record.invalid() != null ? null : record.repair().describe(Instant.now(), repair.window()));
            m.put("last_verdict", lastVerdict == null ? null : Map.of("at", lastVerdict.at().toString(),
                    "severity", lastVerdict.severity().label(), "detail", lastVerdict.detail()));
            m.put("daemon", daemon);
            out.println(JSON.std.with(JSON.Feature.WRITE_NULL_PROPERTIES).asString(m));
        } else {
            text(out, dir, record, lastVerdict, repair, daemon);
        }
        out.flush();
        return ExitCodes.OK;
    }

    private static Map<String, Object> slurm(SlurmRecord r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("invalid", r.invalid());
        m.put("lost", r.lost());
        m.put("held", r.owned() == null ? null : r.owned().label());
        m.put("reason", r.reason());
        m.put("since", r.since() == null ? null : r.since().toString());
        m.put("passes", r.passes());
        m.put("pending", r.pending() == null ? null : r.pending().label());
        m.put("pending_reason", r.pendingReason());
        m.put("pending_since", r.pendingSince() == null ? null : r.pendingSince().toString());
        return m;
    }

    private static void text(PrintWriter out, Path dir, SlurmRecord r, History.Entry last, RepairSettings repair, Map<String, Object> daemon) {
        if (r == null) {
            out.println("nhc holds nothing: no state in " + dir + " yet");
        } else if (r.invalid() != null) {
            out.println("nhc's Slurm record in " + dir + " holds values nhc never writes (" + r.invalid()
                    + "); nhc does not use it and asks Slurm what it holds on its next run");
        } else {
            String node = r.node() == null ? "this node" : "node " + r.node();
            if (r.owned() != null) {
                out.println(node + ": nhc holds it in Slurm: " + r.owned().name() + " since " + r.since());
                out.println("  reason: " + r.reason());
                if (r.passes() > 0) {
                    out.println("  passing runs since: " + r.passes() + " (resume_after decides when nhc resumes it)");
                }
            } else {
                out.println(node + ": nhc holds nothing in Slurm");
            }
            if (r.pending() != null) {
                out.println("  pending: " + r.pending().name() + " since " + r.pendingSince() + ", not taken by Slurm yet: " + r.pendingReason());
            }
            ladder(out, r.repair(), repair);
        }
        out.println("last verdict: " + (last == null ? "none recorded (nhc history keeps those of Slurm mode)"
                : last.severity().label() + " since " + last.at() + ": " + last.detail()));
        out.println("daemon: " + daemon.get("status") + (daemon.get("text") == null ? ""
                : "\n" + String.valueOf(daemon.get("text")).stripTrailing().indent(2).stripTrailing()));
    }

    private static void ladder(PrintWriter out, RepairRecord rec, RepairSettings repair) {
        RepairRecord.Rung rung = rec.rung();
        List<RepairRecord.Reboot> reboots = rec.reboots();
        if (!repair.reboot() && rung == null && reboots.isEmpty()) {
            return;
        }
        String where = switch (rung == null ? "none" : rung.label()) {
            case "rebooting" -> "rebooting: nhc asked Slurm to reboot the node when its jobs end";
            case "rebooted" -> "rebooted: back on a new boot, re-checked before nhc resumes it";
            case "failed" -> "failed: the fault came back after its reboots; replace the part";
            default -> "no rung";
        };
        out.println("  repair ladder: " + where + (rung == null ? "" : " (since " + rec.since() + ", for " + String.join(", ", rec.faults()) + ")"));
        if (!reboots.isEmpty()) {
            out.println("  reboots nhc asked for within " + repair.window().toDays() + "d: " + reboots.size() + " of max_reboots "
                    + repair.maxReboots());
            reboots.forEach(b -> out.println("    " + b.at() + ": " + String.join(", ", b.faults())));
        }
    }

    /** The daemon's latest verdict, asked over its socket as bin/nhc-slurm asks it; what is known when it does not answer. */
    private Map<String, Object> daemon(Plan plan) {
        Map<String, Object> m = new LinkedHashMap<>();
        Path socket = DaemonSettings.of(plan).socket();
        m.put("socket", socket == null ? null : socket.toString());
        if (socket == null || !Files.exists(socket)) {
            m.put("status", "not running" + (socket == null ? " (no daemon.socket)" : " (no socket at " + socket + ")"));
            return m;
        }
        try {
            DaemonClient.Reply r = DaemonClient.verdict(socket, config.file().toAbsolutePath());
            if (r.ok()) {
                m.put("status", "running, exit code " + r.exitCode() + " for its latest verdict");
                m.put("exit_code", r.exitCode());
                m.put("text", r.text());
            } else {
                m.put("status", "running, no verdict for nhc-slurm: " + r.text());
            }
        } catch (IOException e) {
            m.put("status", "does not answer on " + socket + " (" + e.getMessage() + ")");
        }
        return m;
    }
}
