package dev.nhc.cli;

import com.fasterxml.jackson.jr.ob.JSON;
import dev.nhc.engine.state.StateStore;
import dev.nhc.model.Severity;
import dev.nhc.model.Verdict;
import dev.nhc.slurm.history.History;
import dev.nhc.slurm.repair.RepairRecord;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** nhc status and nhc history read what the Slurm action keeps, change nothing, and say the same in --json. */
class StatusHistoryCommandTest {
    private static final String REASON = "NHC: xid: reboot 1 of 2: GPU 1: XID 79 (GPU has fallen off the bus)";

    @TempDir
    Path dir;
    Path config;
    Path state;
    final Instant t = Instant.parse("2026-11-22T04:00:00Z");

    @BeforeEach
    void setUp() throws Exception {
        state = dir.resolve("state");
        config = dir.resolve("nhc.yaml");
        Files.writeString(config, "nhc: 1\nsettings: { state_dir: " + state + " }\n"
                + "daemon: { socket: " + dir.resolve("nhc.sock") + " }\n"
                + "slurm: { repair: reboot, scontrol: /bin/true, sinfo: /bin/true }\n"
                + "checks:\n  - { name: xid, use: test.wait, with: { value: 1 } }\n");
    }

    private String run(Object command, String... args) {
        StringWriter out = new StringWriter();
        CommandLine cl = new CommandLine(command);
        cl.setOut(new PrintWriter(out));
        assertEquals(0, cl.execute(args), out.toString());
        return out.toString();
    }

    /** What the Slurm action leaves after asking for a reboot: its hold, the ladder's rung, the history. */
    private void rebooting() throws Exception {
        StateStore store = new StateStore(state);
        var slurm = store.section("slurm");
        slurm.put("node", "gpu-017");
        slurm.put("owned_state", "drain");
        slurm.put("owned_reason", REASON);
        slurm.put("owned_since", t.toString());
        new RepairRecord(slurm).rebootRequested(Set.of("xid: GPU 1"), "0b5f7c7e-2f4c-4f7e-9d0a-3b1c2d3e4f50", t);
        History h = new History(store.section(History.SECTION));
        Verdict failing = new Verdict("gpu-017", t, 5, List.of(), Severity.FAIL);
        h.verdict(failing, REASON.replace("reboot 1 of 2: ", ""), t);
        h.add(History.Event.REBOOT_REQUESTED, REASON, t);
        store.flush();
    }

    @Test
    void statusShowsWhatNhcHoldsWhyTheRungAndThatNoDaemonRuns() throws Exception {
        rebooting();
        String out = run(new StatusCommand(), "-c", config.toString());
        assertTrue(out.contains("node gpu-017: nhc holds it in Slurm: DRAIN since 2026-11-22T04:00:00Z\n  reason: " + REASON), out);
        assertTrue(out.contains("  repair ladder: rebooting: nhc asked Slurm to reboot the node when its jobs end (since 2026-11-22T04:00:00Z,"
                + " for xid: GPU 1)"), out);
        assertTrue(out.contains("last verdict: fail since 2026-11-22T04:00:00Z: NHC: xid: GPU 1: XID 79"), out);
        assertTrue(out.contains("daemon: not running (no socket at " + dir.resolve("nhc.sock") + ")"), out);

        Map<String, Object> json = JSON.std.mapFrom(run(new StatusCommand(), "-c", config.toString(), "--json"));
        assertEquals("gpu-017", json.get("node"));
        assertEquals("drain", ((Map<?, ?>) json.get("slurm")).get("held"));
        assertEquals(REASON, ((Map<?, ?>) json.get("slurm")).get("reason"));
        assertEquals("rebooting", ((Map<?, ?>) json.get("repair")).get("rung"));
        assertEquals(1, ((List<?>) ((Map<?, ?>) json.get("repair")).get("reboots_in_window")).size());
        assertEquals("fail", ((Map<?, ?>) json.get("last_verdict")).get("severity"));
    }

    @Test
    void statusOfANodeWithNoStateYetSaysSo() {
        String out = run(new StatusCommand(), "-c", config.toString());
        assertTrue(out.startsWith("nhc holds nothing: no state in " + state + " yet"), out);
        assertTrue(!Files.exists(state), "status creates nothing");
    }

    @Test
    void historyShowsEachEntryOldestFirstAndLastN() throws Exception {
        rebooting();
        String out = run(new HistoryCommand(), "-c", config.toString());
        assertEquals(List.of("2026-11-22T04:00:00Z  verdict fail        NHC: xid: GPU 1: XID 79 (GPU has fallen off the bus)",
                "2026-11-22T04:00:00Z  reboot requested    " + REASON), out.lines().toList());
        assertEquals(1, run(new HistoryCommand(), "-c", config.toString(), "--last", "1").lines().count());

        Map<String, Object> json = JSON.std.mapFrom(run(new HistoryCommand(), "-c", config.toString(), "--json"));
        List<?> entries = (List<?>) json.get("entries");
        assertEquals(2, entries.size());
        assertEquals(Map.of("at", "2026-11-22T04:00:00Z", "event", "reboot_requested", "detail", REASON),
                withoutNulls((Map<?, ?>) entries.get(1)));
        assertEquals(0, json.get("damaged"));
    }

    private static Map<Object, Object> withoutNulls(Map<?, ?> m) {
        Map<Object, Object> out = new java.util.LinkedHashMap<>();
        m.forEach((k, v) -> {
            if (v != null) {
                out.put(k, v);
            }
        });
        return out;
    }
}
