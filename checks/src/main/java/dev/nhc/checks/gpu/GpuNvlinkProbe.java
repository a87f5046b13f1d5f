package dev.nhc.checks.gpu;

import dev.nhc.checks.gpu.GpuDevice.NvLinkCounter;
import dev.nhc.model.Remedy;
import dev.nhc.probe.DefaultRule;
import dev.nhc.probe.ParamSpec;
import dev.nhc.probe.Probe;
import dev.nhc.probe.ProbeContext;
import dev.nhc.probe.ProbeResult;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.probe.Tags;
import dev.nhc.units.Unit;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * {@code gpu.nvlink}: each NVLink's state and error counters, judged like DCGM's NVLink watch: a
 * link that is down fails (NVLINK_DOWN), replay or recovery errors that grew since the previous
 * run fail (NVLINK_ERROR_CRITICAL), CRC errors warn, or fail at 100 per second.
 * A GPU without NVLink (PCIe cards) reports 0 links and passes, unless the check expects links.
 */
public final class GpuNvlinkProbe implements Probe {

    static final ParamSpec<Long> EXPECTED_LINKS = ParamSpec.integer("expected_links",
                    "how many NVLinks of each GPU must be up (e.g. 18 on H100 SXM); fewer is a fail")
            .check(n -> n < 1 || n > GpuDevice.MAX_NVLINKS ? "must be 1 to " + GpuDevice.MAX_NVLINKS + " (NVML's most links per GPU)" : null);

    private static final ProbeSpec SPEC = GpuSpecs.builder("gpu.nvlink",
                    "NVLink state per link, replay / recovery counter growth and CRC error rate", Tags.NVLINK)
            .param(EXPECTED_LINKS)
            .field("nvlink_links", Unit.COUNT, "NVLinks the GPU has")
            .field("nvlink_active", Unit.COUNT, "NVLinks that are up")
            .field("nvlink_inactive", Unit.COUNT, "NVLinks that are down")
            .field("nvlink_inactive_links", Unit.TEXT, "the numbers of the links that are down")
            .field("nvlink_replay_errors", Unit.COUNT, "replay errors, all links")
            .field("nvlink_recovery_errors", Unit.COUNT, "recovery errors, all links")
            .field("nvlink_crc_errors", Unit.COUNT, "CRC errors (flit and data), all links")
            .field("nvlink_replay_increase", Unit.COUNT, "replay errors since the previous run")
            .field("nvlink_recovery_increase", Unit.COUNT, "recovery errors since the previous run")
            .field("nvlink_crc_per_sec", Unit.PER_SECOND, "CRC error rate since the previous run")
            // NVML answers NOT_SUPPORTED for what a GPU does not have, and rates need a previous run: absent, not judged.
            .optional("nvlink_links", "nvlink_active", "nvlink_inactive", "nvlink_inactive_links", "nvlink_replay_errors",
                    "nvlink_recovery_errors", "nvlink_crc_errors", "nvlink_replay_increase", "nvlink_recovery_increase",
                    "nvlink_crc_per_sec")
            .rule(DefaultRule.fail(Map.of("nvlink_inactive", "> 0"),
                    "{gpu}: NVLink {nvlink_inactive_links} down (DCGM: NVLINK_DOWN)").remedy(Remedy.RESET_GPU))
            .rule(DefaultRule.fail(Map.of("nvlink_active", "< {with.expected_links}"),
                    "{gpu}: {nvlink_active} of the expected {with.expected_links} NVLinks {nvlink_active|is|are} up ({nvlink_links} reported by the GPU)")
                    .remedy(Remedy.RESET_GPU))
            .rule(DefaultRule.fail(Map.of("nvlink_replay_increase", "> 0"),
                    "{gpu}: {nvlink_replay_increase} new NVLink replay {nvlink_replay_increase|error|errors} (DCGM: NVLINK_ERROR_CRITICAL)").remedy(Remedy.RESET_GPU))
            .rule(DefaultRule.fail(Map.of("nvlink_recovery_increase", "> 0"),
                    "{gpu}: {nvlink_recovery_increase} new NVLink recovery {nvlink_recovery_increase|error|errors} (DCGM: NVLINK_ERROR_CRITICAL)").remedy(Remedy.RESET_GPU))
            .rule(DefaultRule.fail(Map.of("nvlink_crc_per_sec", ">= 100"),
                    "{gpu}: NVLink CRC errors at {nvlink_crc_per_sec} (DCGM: NVLINK_ERROR_THRESHOLD)").remedy(Remedy.RESET_GPU))
            .rule(DefaultRule.warn(Map.of("nvlink_crc_per_sec", "> 0"),
                    "{gpu}: NVLink CRC errors at {nvlink_crc_per_sec}"))
            .build();

    @Override
    public ProbeSpec spec() {
        return SPEC;
    }

    @Override
    public ProbeResult probe(ProbeContext ctx) throws Exception {
        CounterHistory history = new CounterHistory(ctx.state(), ctx.clock().instant());
        return GpuScan.run(ctx, GpuData.NVLINK, (gpu, out) -> {
            int links = 0;
            int active = 0;
            List<Integer> down = new ArrayList<>();
            long replay = 0;
            long recovery = 0;
            long crc = 0;
            boolean countersRead = false;
            for (int link = 0; link < GpuDevice.MAX_NVLINKS; link++) {
                final int l = link;
                Boolean up = gpu.nvlinkActive(l);
                if (up == null) {
                    continue;
                }
                links++;
                if (up) {
                    active++;
                } else {
                    down.add(link);
                }
                Long r = gpu.nvlinkErrors(l, NvLinkCounter.REPLAY);
                Long rc = gpu.nvlinkErrors(l, NvLinkCounter.RECOVERY);
                Long flit = gpu.nvlinkErrors(l, NvLinkCounter.CRC_FLIT);
                Long data = gpu.nvlinkErrors(l, NvLinkCounter.CRC_DATA);
                countersRead |= r != null || rc != null || flit != null || data != null;
                replay += r == null ? 0 : r;
                recovery += rc == null ? 0 : rc;
                crc += (flit == null ? 0 : flit) + (data == null ? 0 : data);
            }
            out.put("nvlink_links", (long) links).put("nvlink_active", (long) active).put("nvlink_inactive", (long) down.size());
            if (!down.isEmpty()) {
                out.put("nvlink_inactive_links", down.stream().map(String::valueOf).collect(Collectors.joining(", ")));
            }
            if (countersRead) {
                out.put("nvlink_replay_errors", replay).put("nvlink_recovery_errors", recovery).put("nvlink_crc_errors", crc);
                String key = GpuEccProbe.key(gpu);
                CounterHistory.Change replays = history.record(key, "nvlink_replay", replay);
                CounterHistory.Change recoveries = history.record(key, "nvlink_recovery", recovery);
                CounterHistory.Change crcs = history.record(key, "nvlink_crc", crc);
                if (replays != null) {
                    out.put("nvlink_replay_increase", replays.increase());
                }
                if (recoveries != null) {
                    out.put("nvlink_recovery_increase", recoveries.increase());
                }
                if (crcs != null) {
                    out.put("nvlink_crc_per_sec", crcs.perSecond());
                }
            }
        });
    }
}
