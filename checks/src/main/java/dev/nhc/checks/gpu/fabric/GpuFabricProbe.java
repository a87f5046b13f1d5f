package dev.nhc.checks.gpu.fabric;

import dev.nhc.checks.BootLatches;
import dev.nhc.checks.gpu.GpuData;
import dev.nhc.checks.gpu.GpuFabric;
import dev.nhc.checks.gpu.GpuScan;
import dev.nhc.checks.gpu.GpuSource;
import dev.nhc.checks.gpu.GpuSpecs;
import dev.nhc.checks.gpu.GpuVendor;
import dev.nhc.checks.host.AllOf;
import dev.nhc.checks.host.Executables;
import dev.nhc.checks.host.SystemdUnits;
import dev.nhc.checks.kernel.KernelLogReader;
import dev.nhc.model.Entity;
import dev.nhc.model.Observation;
import dev.nhc.model.Remedy;
import dev.nhc.probe.DefaultRule;
import dev.nhc.probe.ParamSpec;
import dev.nhc.probe.Params;
import dev.nhc.probe.Probe;
import dev.nhc.probe.ProbeContext;
import dev.nhc.probe.ProbeResult;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.probe.ProbeState;
import dev.nhc.probe.Tags;
import dev.nhc.units.Unit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code gpu.fabric}: the NVSwitch fabric of HGX and NVL systems, from three sources.
 * <ul>
 * <li>Each GPU's registration with the NVLink fabric (NVML's fabric info): its state, the
 *     registration's result and, on newer drivers, the health mask and summary. Judged like DCGM's
 *     NVLink watch (FABRIC_PROBE_STATE: not started or failed fails, in progress warns).</li>
 * <li>The fabric manager service, read only on a node that needs it: {@code fabric_manager:
 *     required}, or unset and some GPU is on a fabric.</li>
 * <li>The fabric manager log's new lines: NVSwitch (and NVLink 5 GPU) errors the fabric manager
 *     reports. Fatal ones fail and stay failing until the node reboots or an admin runs
 *     {@code nhc clear CHECK} (the fabric manager's user guide: a fatal error needs the GPUs and
 *     NVSwitches reset); non-fatal ones warn in the run that sees them.</li>
 * </ul>
 * In a replay it reads only the captures: the GPUs' "Fabric" section of an nvidia-smi capture and
 * a captured fabric manager log, never the machine it runs on.
 */
public final class GpuFabricProbe implements Probe {
    static final String DEFAULT_UNIT = "nvidia-fabricmanager.service";
    static final String DEFAULT_LOG = "/var/log/fabricmanager.log";
    private static final Duration SYSTEMCTL_LIMIT = Duration.ofSeconds(5);

    static final ParamSpec<String> FABRIC_MANAGER = ParamSpec.choice("fabric_manager",
            "whether this node needs the fabric manager service: required (not running fails), optional (installed but not "
                    + "running warns), ignore (not read); unset: required when NVML reports any GPU on an NVLink fabric, else not read",
            "required", "optional", "ignore");
    static final ParamSpec<String> UNIT = ParamSpec.text("unit", "the fabric manager's systemd unit")
            .defaultValue(DEFAULT_UNIT)
            .check(u -> u.isBlank() || u.startsWith("-") || u.contains("/") || u.chars().anyMatch(Character::isWhitespace)
                    ? "must be a unit name such as " + DEFAULT_UNIT + ", not '" + u + "'" : null);
    static final ParamSpec<String> SYSTEMCTL = ParamSpec.text("systemctl", "systemctl executable (a path, or a name looked up in "
            + Executables.searched("systemctl") + ")").defaultValue("systemctl").names(ParamSpec.PathUse.RUN);
    static final ParamSpec<String> LOG = ParamSpec.text("log",
                    "the fabric manager's log file (LOG_FILE_NAME in fabricmanager.cfg), or none to not read it")
            .defaultValue(DEFAULT_LOG)
            .check(s -> s.equals("none") || (s.startsWith("/") && !s.contains("\0")) ? null
                    : "must be an absolute file path or none, not '" + s + "'");
    static final ParamSpec<Long> MAX_LINES = ParamSpec.integer("max_lines",
                    "log lines examined per run; the rest are read in the next run")
            .defaultValue(KernelLogReader.DEFAULT_MAX_LINES)
            .check(n -> n < 1 ? "must be at least 1, not " + n : null);

    private static final String SERVICE_STATE = "{entity} is {active_state} ({sub_state})";

    private static final ProbeSpec SPEC = BootLatches.fields(GpuSpecs.builder("gpu.fabric",
                    "the NVSwitch fabric of HGX/NVL systems: each GPU's NVLink fabric registration and health (NVML), "
                            + "the fabric manager service, and NVSwitch errors in the fabric manager log", Tags.NVSWITCH,
                    "one per GPU (its fabric registration); the fabric manager unit; one per NVSwitch "
                            + "(or NVLink 5 GPU) with errors in the fabric manager log; the log itself; GPUs, the node's GPUs "
                            + "as a whole, when NVML cannot be used", java.util.EnumSet.of(GpuVendor.NVIDIA))
            .tags(Tags.FABRIC)
            .param(FABRIC_MANAGER)
            .param(UNIT)
            .param(SYSTEMCTL)
            .param(LOG)
            .param(MAX_LINES)
            .field("fabric_state", Unit.TEXT, "the GPU's fabric registration: not-supported, not-started, in-progress or completed")
            .field("fabric_status", Unit.TEXT, "the registration's result once completed, as NVML names it (SUCCESS, or the error)")
            .field("fabric_failed", Unit.BOOLEAN, "true when the registration completed with an error")
            .field("fabric_clique_id", Unit.COUNT, "the fabric clique the GPU belongs to")
            .field("fabric_cluster_uuid", Unit.TEXT, "the fabric's cluster UUID")
            .field("fabric_health", Unit.TEXT, "the driver's health summary: healthy, unhealthy or limited-capacity (newer drivers)")
            .field("fabric_bandwidth_degraded", Unit.BOOLEAN, "NVLink bandwidth to the fabric is degraded (health mask)")
            .field("fabric_route_recovery", Unit.BOOLEAN, "the fabric is recovering a route to the GPU (health mask)")
            .field("fabric_route_unhealthy", Unit.BOOLEAN, "a route to the GPU is unhealthy (health mask)")
            .field("fabric_access_timeout_recovery", Unit.BOOLEAN, "the fabric is recovering from an access timeout (health mask)")
            .field("fabric_incorrect_configuration", Unit.TEXT, "what is misconfigured (none, incorrect-sysguid, incorrect-chassis-sn, "
                    + "no-partition, insufficient-nvlinks, incompatible-gpu-firmware, invalid-location, gpu-state-invalid)")
            .field("active_state", Unit.TEXT, "fabric manager unit: ActiveState (active, failed, inactive, activating…)")
            .field("sub_state", Unit.TEXT, "fabric manager unit: SubState (running, dead, exited…)")
            .field("load_state", Unit.TEXT, "fabric manager unit: LoadState (loaded, not-found…)")
            .field("active", Unit.BOOLEAN, "fabric manager unit: its processes run or are being started")
            .field("required", Unit.BOOLEAN, "fabric manager unit: whether this node needs it (fabric_manager: required, or unset "
                    + "and a GPU is on a fabric)")
            .field("fatal_errors", Unit.COUNT, "NVSwitch or GPU: fatal error lines in the fabric manager log since boot (or nhc clear)")
            .field("fatal_detail", Unit.TEXT, "the fatal errors: SXid (or error code) and port, how many lines, the first one's time")
            .field("nonfatal_errors", Unit.COUNT, "NVSwitch or GPU: non-fatal error lines in the fabric manager log since the last run")
            .field("nonfatal_detail", Unit.TEXT, "the non-fatal errors: SXid (or error code) and port, how many lines, the first one's time")
            .field("lines_read", Unit.COUNT, "the log: new lines read this run")
            .field("before_boot_errors", Unit.COUNT, "the log: errors stamped before this boot, not judged")
            .field("behind", Unit.BOOLEAN, "the log: not every new line was read this run (max_lines or the deadline); the rest are read next run")
            .field("cursor_resets", Unit.COUNT, "the log: values of the reader's cursor in the check's state that were invalid "
                    + "this run (the cursor was dropped and the log read from its start)")
            .field("cursor_problem", Unit.TEXT, "the log: what was wrong with them")
            .reportedFor(Entity.Kind.SERVICE, "active_state", "sub_state", "load_state", "active", "required")
            .reportedFor(Entity.Kind.LOG, "lines_read", "before_boot_errors", "behind", "cursor_resets", "cursor_problem")
            // A GPU's fabric values are NVML's (absent where it answers NOT_SUPPORTED); the errors of the log are reported for
            // NVSwitches and NVLink 5 GPUs alike, the latter known by their PCI address alone.
            .optional("fabric_state", "fabric_status", "fabric_failed", "fabric_clique_id", "fabric_cluster_uuid", "fabric_health",
                    "fabric_bandwidth_degraded", "fabric_route_recovery", "fabric_route_unhealthy", "fabric_access_timeout_recovery",
                    "fabric_incorrect_configuration", "fatal_errors", "fatal_detail", "nonfatal_errors", "nonfatal_detail",
                    "cursor_problem", "gpu", "pci_bus_id")
            // The GPUs: DCGM's NVLink watch judges the fabric state as FABRIC_PROBE_STATE (not started or
            // failed: FAIL, in progress: WARN) and the health mask's route and bandwidth bits as incidents.
            .rule(DefaultRule.fail(Map.of("fabric_failed", true),
                    "{gpu}: NVLink fabric registration failed ({fabric_status}); CUDA cannot use its NVLinks").remedy(Remedy.REBOOT))
            .rule(DefaultRule.fail(Map.of("fabric_state", "not-started"),
                    "{gpu}: not registered with the NVLink fabric (state not started): the fabric manager has not set up the "
                            + "NVSwitches, and CUDA jobs fail until it does"))
            .rule(DefaultRule.fail(Map.of("fabric_route_unhealthy", true),
                    "{gpu}: an NVLink fabric route to this GPU is unhealthy").remedy(Remedy.RESET_GPU))
            .rule(DefaultRule.fail(Map.of("fabric_incorrect_configuration", "!~ ^none$"),
                    "{gpu}: NVLink fabric misconfigured: {fabric_incorrect_configuration}"))
            .rule(DefaultRule.fail(Map.of("fabric_health", "unhealthy"),
                    "{gpu}: the driver rates its NVLink fabric connection unhealthy").remedy(Remedy.RESET_GPU))
            // The service, on a node that needs it.
            .rule(DefaultRule.fail(AllOf.of("required", true, "load_state", "not-found"),
                    "{entity} is not installed, and this node's NVSwitch fabric needs it"))
            .rule(DefaultRule.fail(AllOf.of("required", true, "active", false),
                    SERVICE_STATE + "; this node's NVSwitch fabric needs it (start it, after a GPU reset if GPUs were in use)"))
            // The log: fatal NVSwitch errors latch.
            .rule(DefaultRule.fail(Map.of("fatal_errors", "> 0"),
                    "{entity}: fatal error {fatal_detail}; stays failing until reboot or `nhc clear {check}`").remedy(Remedy.REBOOT))
            .rule(DefaultRule.warn(Map.of("fabric_state", "in-progress"),
                    "{gpu}: NVLink fabric registration still in progress; CUDA jobs fail with 'system not yet initialized' until it completes"))
            .rule(DefaultRule.warn(Map.of("fabric_bandwidth_degraded", true), "{gpu}: NVLink fabric bandwidth degraded"))
            .rule(DefaultRule.warn(Map.of("fabric_route_recovery", true), "{gpu}: the NVLink fabric is recovering a route to this GPU"))
            .rule(DefaultRule.warn(Map.of("fabric_access_timeout_recovery", true),
                    "{gpu}: the NVLink fabric is recovering from an access timeout"))
            .rule(DefaultRule.warn(Map.of("fabric_health", "limited-capacity"), "{gpu}: NVLink fabric at limited capacity"))
            .rule(DefaultRule.warn(AllOf.of("required", true, "active_state", "activating"),
                    "{entity} is still starting (setting up the NVSwitch fabric)"))
            .rule(DefaultRule.warn(AllOf.of("required", false, "active", false, "load_state", "loaded"),
                    SERVICE_STATE + " (fabric_manager: optional)"))
            .rule(DefaultRule.warn(Map.of("nonfatal_errors", "> 0"), "{entity}: non-fatal error {nonfatal_detail}"))
            // Nothing was missed (the log was read from its start), but state that was damaged or edited is worth a look.
            .rule(DefaultRule.warn(Map.of("cursor_resets", "> 0"), "fabric manager log cursor: {cursor_problem}")),
            "the log", "latched fabric manager errors", "fatal NVSwitch errors of this boot", "the fabric manager log")
            .reportedFor(Entity.Kind.LOG, "state_lost")
            .optional(BootLatches.OPTIONAL_FIELDS).build();

    @Override
    public ProbeSpec spec() {
        return SPEC;
    }

    /** {@code nhc clear}: forget the latched errors, keep the log cursor so that the old lines are not judged again. */
    @Override
    public void clear(ProbeState state) {
        for (String key : state.snapshot().keySet()) {
            if (!key.startsWith(FabricManagerLogReader.KEY_PREFIX)) {
                state.remove(key);
            }
        }
    }

    @Override
    public ProbeResult probe(ProbeContext ctx) throws Exception {
        Params p = ctx.params();
        Optional<FabricManagerLogCapture> capture = ctx.service(FabricManagerLogCapture.class);
        boolean replay = capture.isPresent() || ctx.service(GpuSource.class).isPresent();
        List<Observation> observations = new ArrayList<>();

        ProbeResult gpus = GpuScan.run(ctx, SPEC, GpuData.FABRIC, (gpu, out) -> observe(gpu.fabric(), out));
        boolean gpusRead = gpus.skipped() == null;
        observations.addAll(gpus.observations());
        boolean onFabric = false;
        for (Observation o : gpus.observations()) {
            Object state = o.get("fabric_state");
            onFabric |= state != null && !GpuFabric.State.NOT_SUPPORTED.label().equals(state);
        }

        String mode = FABRIC_MANAGER.get(p);
        boolean required = "required".equals(mode) || (mode == null && onFabric);
        if (!replay && (required || "optional".equals(mode))) {
            observations.add(service(ctx, UNIT.get(p), SYSTEMCTL.get(p), required));
        }

        boolean logRead = false;
        if (capture.isPresent()) {
            observations.addAll(FabricManagerLogErrors.observe(ctx, capture.get().file(), true, true, MAX_LINES.get(p)));
            logRead = true;
        } else if (!replay && !LOG.get(p).equals("none")) {
            observations.addAll(FabricManagerLogErrors.observe(ctx, ctx.sys(LOG.get(p)), required, false, MAX_LINES.get(p)));
            logRead = true;
        }

        if (!gpusRead && !logRead && observations.isEmpty()) {
            return ProbeResult.skipped(gpus.skipped());
        }
        return new ProbeResult(observations, null);
    }

    /** The GPU's fabric fields; none for a GPU or driver without fabric information. */
    private static void observe(GpuFabric f, GpuScan.Fields out) {
        if (f == null) {
            return;
        }
        out.put("fabric_state", f.state() == null ? null : f.state().label())
                .put("fabric_status", f.status())
                .put("fabric_failed", f.statusOk() == null ? null : !f.statusOk())
                .put("fabric_clique_id", f.cliqueId())
                .put("fabric_cluster_uuid", f.clusterUuid())
                .put("fabric_health", f.health() == null ? null : f.health().label())
                .put("fabric_bandwidth_degraded", f.bandwidthDegraded())
                .put("fabric_route_recovery", f.routeRecovery())
                .put("fabric_route_unhealthy", f.routeUnhealthy())
                .put("fabric_access_timeout_recovery", f.accessTimeoutRecovery())
                .put("fabric_incorrect_configuration", f.incorrectConfiguration());
    }

    private static Observation service(ProbeContext ctx, String unit, String systemctl, boolean required) throws InterruptedException {
        Entity entity = Entity.of(Entity.Kind.SERVICE, unit);
        Duration limit = ctx.remaining().dividedBy(2);
        try {
            SystemdUnits.UnitState s = SystemdUnits.show(systemctl, unit, limit.compareTo(SYSTEMCTL_LIMIT) > 0 ? SYSTEMCTL_LIMIT : limit);
            return s.observe(Observation.of(entity)).put("required", required).build();
        } catch (SystemdUnits.Unreadable e) {
            return Observation.unreadable(entity, e.getMessage());
        }
    }
}
