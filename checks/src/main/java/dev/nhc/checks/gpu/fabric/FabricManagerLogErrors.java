package dev.nhc.checks.gpu.fabric;

import dev.nhc.checks.BootLatches;
import dev.nhc.checks.kernel.KernelLogReader;
import dev.nhc.model.Entity;
import dev.nhc.model.Observation;
import dev.nhc.probe.ProbeContext;
import dev.nhc.probe.ProbeState;

import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What {@code gpu.fabric} observes in the fabric manager log: per NVSwitch (or NVLink 5 GPU) the
 * fatal errors latched since boot and the non-fatal errors of this run's new lines, and the log
 * itself (how much was read, and whether latched errors were lost). The latches live in the one
 * latch store ({@link BootLatches}, keys {@code fm.*}) beside the reader's cursor ({@code fmlog.*});
 * a new boot id drops them, because the node's NVSwitches and GPUs were reset with the reboot.
 */
final class FabricManagerLogErrors {
    static final String LATCHED = "fm.latched";
    /** How far before the boot time a log line may be stamped and still count as this boot's (clock skew). */
    private static final Duration BOOT_SLACK = Duration.ofSeconds(5);

    private FabricManagerLogErrors() {
    }

    /**
     * The log's errors per device: fatal ones latched with what was latched before (dropped when the
     * node rebooted), non-fatal ones of this run; and the log itself.
     *
     * @param mustExist a missing log is a reading problem only when the node needs the fabric manager
     * @param whole     a capture: read whole, every error judged, no boot and no cursor
     */
    static List<Observation> observe(ProbeContext ctx, Path file, boolean mustExist, boolean whole, long maxLines) {
        Entity logEntity = Entity.of(Entity.Kind.LOG, file.toString(), "fabric manager log " + file);
        ProbeState state = ctx.state();
        String boot = whole ? null : KernelLogReader.bootId(ctx);
        Map<String, FabricErrorGroup> latched = new LinkedHashMap<>();
        BootLatches store = whole ? null : loadLatches(state, boot, latched);
        String lost = store == null ? null : store.lost();
        Instant bootTime = whole ? null : KernelLogReader.bootTime(ctx);
        Instant notBefore = bootTime == null ? null : bootTime.minus(BOOT_SLACK);

        Map<String, FabricErrorGroup> fatal = new LinkedHashMap<>();
        Map<String, FabricErrorGroup> nonFatal = new LinkedHashMap<>();
        long[] beforeBoot = {0};
        FabricManagerLogParser parser = new FabricManagerLogParser(null, e -> {
            if (notBefore != null && e.time() != null && e.time().isBefore(notBefore)) {
                beforeBoot[0]++;
                return;
            }
            (e.fatal() ? fatal : nonFatal).merge(FabricErrorGroup.key(e.kind(), e.device()), FabricErrorGroup.of(e), (a, b) -> {
                a.merge(b);
                return a;
            });
        });
        FabricManagerLogReader reader = new FabricManagerLogReader(file, state, maxLines, ctx.clock(), stopAt(ctx));
        FabricManagerLogReader.Stats stats = null;
        Observation unreadable = null;
        try {
            stats = whole ? reader.readWhole(parser::line) : reader.readNew(parser::line);
            parser.finish();
        } catch (NoSuchFileException e) {
            // A node without NVSwitches has no fabric manager log; one that needs it should.
            if (mustExist) {
                unreadable = Observation.unreadable(logEntity, e.getReason()
                        + " (set the check's log: to the LOG_FILE_NAME of fabricmanager.cfg, or log: none)");
            }
        } catch (IOException e) {
            unreadable = Observation.unreadable(logEntity, e.getMessage() == null ? "cannot read " + file + ": " + e : e.getMessage());
        }

        fatal.forEach((key, g) -> latched.merge(key, g, (a, b) -> {
            a.merge(b);
            return a;
        }));
        if (store != null) {
            store.save(state, FabricErrorGroup.toState(latched), boot);
        }

        List<Observation> out = new ArrayList<>();
        Map<String, Observation.Builder> devices = new LinkedHashMap<>();
        latched.forEach((key, g) -> devices.computeIfAbsent(key, k -> Observation.of(g.entity()).put("nonfatal_errors", 0L))
                .put("fatal_errors", g.lines()).put("fatal_detail", g.detail()));
        nonFatal.forEach((key, g) -> devices.computeIfAbsent(key, k -> Observation.of(g.entity()).put("fatal_errors", 0L))
                .put("nonfatal_errors", g.lines()).put("nonfatal_detail", g.detail()));
        // Latched errors are reported whether or not the log can be read now: a log that went away
        // (rotated, deleted) must not make a failed NVSwitch pass.
        devices.values().forEach(b -> out.add(b.build()));
        if (stats != null) {
            Observation.Builder log = Observation.of(logEntity);
            if (store != null) {
                store.observe(log);
            }
            out.add(log.put("lines_read", stats.linesRead()).put("before_boot_errors", beforeBoot[0]).put("behind", stats.behind())
                    .put("cursor_resets", (long) stats.warnings().size())
                    .put("cursor_problem", stats.warnings().isEmpty() ? null : String.join("; ", stats.warnings())).build());
        } else if (unreadable != null) {
            out.add(unreadable);
        } else if (lost != null) {
            out.add(store.observe(Observation.of(logEntity)).build());
        }
        return out;
    }

    /**
     * The latched errors of this boot into {@code latched}: none after a reboot. The store says why
     * some could not be read back: a fatal error that silently fell out of the state would let a
     * drained node resume, so the loss itself is kept and observed until reboot or {@code nhc clear}.
     */
    private static BootLatches loadLatches(ProbeState state, String boot, Map<String, FabricErrorGroup> latched) {
        BootLatches store = BootLatches.load(state, "fm", boot);
        String damaged = FabricErrorGroup.load(store.saved(), LATCHED, latched);
        if (damaged != null) {
            store.lost(damaged);
        }
        return store;
    }

    /** Stops reading a little before the check's deadline, so that the probe still answers in time. */
    private static Instant stopAt(ProbeContext ctx) {
        Duration left = ctx.remaining();
        Duration margin = left.dividedBy(5);
        if (margin.compareTo(Duration.ofMillis(500)) > 0) {
            margin = Duration.ofMillis(500);
        }
        return ctx.clock().instant().plus(left).minus(margin);
    }
}
