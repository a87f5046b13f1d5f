package dev.nhc.cli;

import com.fasterxml.jackson.jr.ob.JSON;
import dev.nhc.slurm.history.History;
import dev.nhc.engine.policy.ExitCodes;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

@Command(name = "history", description = {"Show the node's verdict changes and nhc's actions in Slurm (drain, fail, resume, "
        + "reboot requested, reboot seen, someone else taking over) with their reasons and times, oldest first.",
        "nhc keeps the last " + History.MAX_ENTRIES + " in its state directory (history.json) in Slurm mode."})
final class HistoryCommand implements Callable<Integer> {
    @Mixin
    ConfigOption config = new ConfigOption();

    @Mixin
    StateDirOption stateDir = new StateDirOption();

    @Option(names = {"-n", "--last"}, paramLabel = "N", description = "Only the last N entries.")
    Integer last;

    @Option(names = "--json", description = "Print exactly one JSON object: entries (at, event, severity, detail), damaged.")
    boolean json;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help.")
    boolean help;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        if (last != null && last < 1) {
            spec.commandLine().getErr().println("nhc: history --last: must be at least 1, not " + last);
            return ExitCodes.INVALID;
        }
        StateDirOption.Opened state = stateDir.open(config, spec.commandLine().getErr());
        if (state.exitCode() != null) {
            return state.exitCode();
        }
        Path dir = state.dir();
        History.Read read = state.store() == null ? new History.Read(List.of(), 0, null) : History.read(state.store().section(History.SECTION));
        List<History.Entry> entries = read.entries();
        if (last != null && entries.size() > last) {
            entries = entries.subList(entries.size() - last, entries.size());
        }
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            List<Map<String, Object>> list = new ArrayList<>();
            for (History.Entry e : entries) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("at", e.at().toString());
                m.put("event", e.event().label());
                m.put("severity", e.severity() == null ? null : e.severity().label());
                m.put("detail", e.detail());
                list.add(m);
            }
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("state_dir", dir.toString());
            m.put("entries", list);
            m.put("damaged", read.damaged());
            m.put("lost", read.lost());
            out.println(JSON.std.with(JSON.Feature.WRITE_NULL_PROPERTIES).asString(m));
        } else {
            if (entries.isEmpty()) {
                out.println("no history in " + dir + " (nhc keeps it when it acts for Slurm: nhc run --slurm, bin/nhc-slurm, the daemon)");
            }
            for (History.Entry e : entries) {
                String what = e.event() == History.Event.VERDICT ? "verdict " + e.severity().label() : e.event().label().replace('_', ' ');
                out.println(e.at() + "  " + String.format("%-18s", what) + "  " + e.detail());
            }
            if (read.damaged() > 0) {
                out.println("(" + read.damaged() + " damaged entr" + (read.damaged() == 1 ? "y" : "ies") + " in " + dir.resolve("history.json")
                        + " not shown)");
            }
            if (read.lost() != null) {
                out.println("(earlier history was lost: " + read.lost() + ")");
            }
        }
        out.flush();
        return ExitCodes.OK;
    }
}
