package dev.nhc.checks.gpu;

import dev.nhc.checks.gpu.GpuDevice.LinkCounter;
import dev.nhc.checks.host.AllOf;
import dev.nhc.model.Remedy;
import dev.nhc.probe.DefaultRule;
import dev.nhc.probe.ParamSpec;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.units.Unit;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Reading and judging a GPU's GPU-to-GPU links (NVIDIA's NVLink, AMD's XGMI), shared by
 * {@code gpu.links} (every vendor, {@code link_*} fields) and {@code gpu.nvlink} (NVIDIA's older
 * name, {@code nvlink_*} fields). Judged like DCGM's NVLink watch: a link that is down fails
 * (NVLINK_DOWN), replay or recovery errors that grew since the previous run fail
 * (NVLINK_ERROR_CRITICAL), CRC errors warn, or fail at 100 per second. AMD counts XGMI errors for
 * the GPU as a whole, not per link: an XGMI error status other than "no errors" warns.
 * A GPU without such links (PCIe cards) reports 0 links and passes, unless the check expects links.
 */
final class GpuLinks {

    /** The field names of one probe, and the state keys of its counters. */
    record Names(String links, String active, String inactive, String inactiveList, String replay, String recovery, String crc,
                 String replayIncrease, String recoveryIncrease, String crcPerSec, String statePrefix) {
    }

    static final Names NVLINK = new Names("nvlink_links", "nvlink_active", "nvlink_inactive", "nvlink_inactive_links",
            "nvlink_replay_errors", "nvlink_recovery_errors", "nvlink_crc_errors", "nvlink_replay_increase", "nvlink_recovery_increase",
            "nvlink_crc_per_sec", "nvlink");
    static final Names ANY = new Names("links", "links_active", "links_inactive", "links_down",
            "link_replay_errors", "link_recovery_errors", "link_crc_errors", "link_replay_increase", "link_recovery_increase",
            "link_crc_per_sec", "link");

    static final ParamSpec<Long> EXPECTED_LINKS = ParamSpec.integer("expected_links",
                    "how many GPU-to-GPU links of each GPU must be up (e.g. 18 NVLinks on H100 SXM, 7 XGMI links on MI300X); fewer is a fail")
            .check(n -> n < 1 || n > GpuDevice.MAX_LINKS ? "must be 1 to " + GpuDevice.MAX_LINKS + " (NVML's most links per GPU)" : null);

    private GpuLinks() {
    }

    /** {@code gpu.nvlink}'s spec, as it always was: NVIDIA's words and DCGM's names. */
    static ProbeSpec nvlinkSpec() {
        Names n = NVLINK;
        return fields(GpuSpecs.builder("gpu.nvlink", "NVLink state per link, replay / recovery counter growth and CRC error rate",
                        dev.nhc.probe.Tags.NVLINK, GpuSpecs.ENTITIES, java.util.EnumSet.of(GpuVendor.NVIDIA)), n, "NVLinks")
                .rule(DefaultRule.fail(Map.of(n.inactive(), "> 0"),
                        "{gpu}: NVLink {nvlink_inactive_links} down (DCGM: NVLINK_DOWN)").remedy(Remedy.RESET_GPU))
                .rule(DefaultRule.fail(Map.of(n.active(), "< {with.expected_links}"),
                        "{gpu}: {nvlink_active} of the expected {with.expected_links} NVLinks {nvlink_active|is|are} up ({nvlink_links} reported by the GPU)")
                        .remedy(Remedy.RESET_GPU))
                .rule(DefaultRule.fail(Map.of(n.replayIncrease(), "> 0"),
                        "{gpu}: {nvlink_replay_increase} new NVLink replay {nvlink_replay_increase|error|errors} (DCGM: NVLINK_ERROR_CRITICAL)").remedy(Remedy.RESET_GPU))
                .rule(DefaultRule.fail(Map.of(n.recoveryIncrease(), "> 0"),
                        "{gpu}: {nvlink_recovery_increase} new NVLink recovery {nvlink_recovery_increase|error|errors} (DCGM: NVLINK_ERROR_CRITICAL)").remedy(Remedy.RESET_GPU))
                .rule(DefaultRule.fail(Map.of(n.crcPerSec(), ">= 100"),
                        "{gpu}: NVLink CRC errors at {nvlink_crc_per_sec} (DCGM: NVLINK_ERROR_THRESHOLD)").remedy(Remedy.RESET_GPU))
                .rule(DefaultRule.warn(Map.of(n.crcPerSec(), "> 0"),
                        "{gpu}: NVLink CRC errors at {nvlink_crc_per_sec}"))
                .build();
    }

    /** {@code gpu.links}' spec: the same judgement for every vendor's links, named by the vendor's word for them. */
    static ProbeSpec anySpec() {
        Names n = ANY;
        return fields(GpuSpecs.builder("gpu.links", "GPU-to-GPU links (NVLink, XGMI): state per link, error counter growth "
                        + "and CRC error rate (NVIDIA), XGMI error status (AMD)", dev.nhc.probe.Tags.NVLINK, GpuSpecs.ENTITIES,
                        GpuSpecs.ALL_VENDORS), n, "links")
                .field("link_type", Unit.TEXT, "what the vendor calls the links: NVLink or XGMI")
                .field("link_error_status", Unit.TEXT, "AMD: the XGMI error status: no errors, error or multiple errors")
                .field("link_errors_detected", Unit.BOOLEAN, "AMD: the XGMI error status is not 'no errors'")
                .optional("link_type", "link_error_status", "link_errors_detected")
                .rule(DefaultRule.fail(AllOf.of(n.inactive(), "> 0", "link_type", "XGMI"),
                        "{gpu}: XGMI {links_inactive|link|links} {links_down} down; reset the GPU (amd-smi reset -G, which resets "
                                + "its whole XGMI hive) and have the node serviced if the link stays down").remedy(Remedy.RESET_GPU))
                .rule(DefaultRule.fail(Map.of(n.inactive(), "> 0"),
                        "{gpu}: {link_type} {links_inactive|link|links} {links_down} down").remedy(Remedy.RESET_GPU))
                .rule(DefaultRule.fail(Map.of(n.active(), "< {with.expected_links}"),
                        "{gpu}: {links_active} of the expected {with.expected_links} {link_type} links {links_active|is|are} up ({links} reported by the GPU)")
                        .remedy(Remedy.RESET_GPU))
                .rule(DefaultRule.fail(Map.of(n.replayIncrease(), "> 0"),
                        "{gpu}: {link_replay_increase} new {link_type} replay {link_replay_increase|error|errors}").remedy(Remedy.RESET_GPU))
                .rule(DefaultRule.fail(Map.of(n.recoveryIncrease(), "> 0"),
                        "{gpu}: {link_recovery_increase} new {link_type} recovery {link_recovery_increase|error|errors}").remedy(Remedy.RESET_GPU))
                .rule(DefaultRule.fail(Map.of(n.crcPerSec(), ">= 100"),
                        "{gpu}: {link_type} CRC errors at {link_crc_per_sec}").remedy(Remedy.RESET_GPU))
                .rule(DefaultRule.warn(Map.of(n.crcPerSec(), "> 0"),
                        "{gpu}: {link_type} CRC errors at {link_crc_per_sec}"))
                .rule(DefaultRule.warn(Map.of("link_errors_detected", true),
                        "{gpu}: XGMI reports {link_error_status} (amd-smi xgmi -s); the status stays until 'amd-smi reset --xgmierr' clears it"))
                .build();
    }

    private static ProbeSpec.Builder fields(ProbeSpec.Builder b, Names n, String what) {
        return b.param(EXPECTED_LINKS)
                .field(n.links(), Unit.COUNT, what + " the GPU has")
                .field(n.active(), Unit.COUNT, what + " that are up")
                .field(n.inactive(), Unit.COUNT, what + " that are down")
                .field(n.inactiveList(), Unit.TEXT, "the numbers of the links that are down")
                .field(n.replay(), Unit.COUNT, "replay errors, all links")
                .field(n.recovery(), Unit.COUNT, "recovery errors, all links")
                .field(n.crc(), Unit.COUNT, "CRC errors (flit and data), all links")
                .field(n.replayIncrease(), Unit.COUNT, "replay errors since the previous run")
                .field(n.recoveryIncrease(), Unit.COUNT, "recovery errors since the previous run")
                .field(n.crcPerSec(), Unit.PER_SECOND, "CRC error rate since the previous run")
                // A library answers "not supported" for what a GPU does not have, and rates need a previous run: absent, not judged.
                .optional(n.links(), n.active(), n.inactive(), n.inactiveList(), n.replay(), n.recovery(), n.crc(), n.replayIncrease(),
                        n.recoveryIncrease(), n.crcPerSec());
    }

    /** One GPU's links into {@code out}; a link the GPU does not have (NOT_SUPPORTED, disabled) is not counted. */
    static void read(GpuDevice gpu, GpuScan.Fields out, Names n, CounterHistory history) throws GpuCallException {
        int links = 0;
        int active = 0;
        List<Integer> down = new ArrayList<>();
        long replay = 0;
        long recovery = 0;
        long crc = 0;
        boolean countersRead = false;
        for (int link = 0; link < GpuDevice.MAX_LINKS; link++) {
            Boolean up = gpu.linkActive(link);
            if (up == null) {
                continue;
            }
            links++;
            if (up) {
                active++;
            } else {
                down.add(link);
            }
            Long r = gpu.linkErrors(link, LinkCounter.REPLAY);
            Long rc = gpu.linkErrors(link, LinkCounter.RECOVERY);
            Long flit = gpu.linkErrors(link, LinkCounter.CRC_FLIT);
            Long data = gpu.linkErrors(link, LinkCounter.CRC_DATA);
            countersRead |= r != null || rc != null || flit != null || data != null;
            replay += r == null ? 0 : r;
            recovery += rc == null ? 0 : rc;
            crc += (flit == null ? 0 : flit) + (data == null ? 0 : data);
        }
        out.put(n.links(), (long) links).put(n.active(), (long) active).put(n.inactive(), (long) down.size());
        if (!down.isEmpty()) {
            out.put(n.inactiveList(), down.stream().map(String::valueOf).collect(Collectors.joining(", ")));
        }
        if (countersRead) {
            out.put(n.replay(), replay).put(n.recovery(), recovery).put(n.crc(), crc);
            String key = GpuEccProbe.key(gpu);
            CounterHistory.Change replays = history.record(key, n.statePrefix() + "_replay", replay);
            CounterHistory.Change recoveries = history.record(key, n.statePrefix() + "_recovery", recovery);
            CounterHistory.Change crcs = history.record(key, n.statePrefix() + "_crc", crc);
            if (replays != null) {
                out.put(n.replayIncrease(), replays.increase());
            }
            if (recoveries != null) {
                out.put(n.recoveryIncrease(), recoveries.increase());
            }
            if (crcs != null) {
                out.put(n.crcPerSec(), crcs.perSecond());
            }
        }
    }

    /** The vendor's GPU-level link fields of {@code gpu.links}: its word for the links, AMD's XGMI error status. */
    static void readVendorFields(GpuDevice gpu, GpuScan.Fields out) throws GpuCallException {
        out.put("link_type", gpu.vendor().linkName());
        String status = gpu.linkErrorStatus();
        if (status != null) {
            out.put("link_error_status", status).put("link_errors_detected", !status.equals("no errors"));
        }
    }
}
