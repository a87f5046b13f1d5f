package dev.nhc.checks.net;

import dev.nhc.checks.Globs;
import dev.nhc.checks.host.AllOf;
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
import dev.nhc.probe.Tags;
import dev.nhc.units.Unit;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * {@code ib.ports}: InfiniBand and RoCE ports from {@code /sys/class/infiniband} (in a replay, an
 * {@code ibstat} capture): each port's state, physical state, rate, link layer and RoCE netdev, and its
 * error counters as increases and rates since the previous run; for the node, how many ports are up.
 *
 * <p>Which ports must be Active: without {@code count}, every port considered (by {@code devices}
 * and {@code link_layer}, InfiniBand by default) — each one that is not fails by itself. With
 * {@code count}, the ports are judged together: that many must be Active (at {@code rate} or faster
 * when it is given), and an unused port or a slower management port is none of the check's business
 * as long as enough are up. The verdicts are the default rules; the probe only observes.
 *
 * <p>What the rules stand on: a port's logical state is ACTIVE only once the subnet manager has
 * configured it, and its physical state LinkUp once training succeeded (InfiniBand Architecture
 * spec, kernel sysfs-class-infiniband ABI); a port that is not LinkUp has no link (cable, transceiver,
 * switch port: hardware), while LinkUp but INIT/ARMED waits for the subnet manager (the fabric, not
 * this node: a warning, since an SM outage would otherwise drain every node). {@code link_downed}
 * counts the times the port training state machine gave up and downed the link, {@code link_error_recovery}
 * the times it retrained successfully; NVSentinel treats "link_downed 3 or more times in 10 minutes" as
 * a repeated link flap needing the node out of service, hence {@code flap_burst: 3} within
 * {@code flap_window: 10m}. Both counters are 8-bit in the PortCounters attribute and stop at 255:
 * a saturated counter no longer rises (clear it with {@code perfquery -R} after the repair).
 */
public final class IbPortsProbe implements Probe {
    static final String CLASS_DIR = "/sys/class/infiniband";
    static final String UMAD_ABI = "/sys/class/infiniband_mad/abi_version";
    private static final int NAMED_MAX = 16;
    /** Counters shown as a rate per minute (the flap counters are shown as increases). */
    private static final List<String> RATED = SysfsIbPorts.COUNTERS.subList(2, SysfsIbPorts.COUNTERS.size());

    static final ParamSpec<Long> COUNT = ParamSpec.integer("count",
                    "how many ports must be Active (at 'rate' or faster, when given); without it every port considered must be")
            .check(n -> n < 1 ? "must be at least 1" : n > 1024 ? "must be at most 1024 ports" : null);
    static final ParamSpec<Long> RATE = ParamSpec.integer("rate",
                    "the rate in Gb/s the ports must run at (e.g. 400 for NDR 4X); an active port below it warns, or does not count towards 'count'")
            .check(n -> n < 1 ? "must be at least 1 (Gb/s)" : n > 100_000 ? "must be a rate in Gb/s such as 400" : null);
    static final ParamSpec<Boolean> EXACT_RATE = ParamSpec.flag("exact_rate",
                    "count a port only at exactly 'rate' (LBNL NHC's check_hw_ib), not at 'rate' or faster").defaultValue(false);
    static final ParamSpec<List<Pattern>> DEVICES = ParamSpec.globs("devices",
                    "device names or globs to consider, e.g. [mlx5_0, \"mlx5_[3-6]\"] (DEVICE/PORT, or LBNL NHC's DEVICE:PORT, names one port); "
                            + "default: every device")
            .check(IbPortsProbe::deviceNamesProblem);
    /** A device as sysfs names it (mlx5_0, mlx5_ib3, hfi1_0, mlx5_bond_0), optionally a port; glob characters allowed in both. */
    private static final Pattern DEVICE_NAME = Pattern.compile("[A-Za-z0-9_.*?\\[\\]!-]+([/:][0-9*?\\[\\]!-]+)?");
    static final ParamSpec<String> LINK_LAYER = ParamSpec.choice("link_layer",
                    "which ports to consider: InfiniBand ones, Ethernet (RoCE) ones, or both", "infiniband", "ethernet", "any")
            .defaultValue("infiniband");
    static final ParamSpec<Duration> FLAP_WINDOW = ParamSpec.duration("flap_window",
                    "how far back link-downed events count towards a burst (a burst fails until it is this old, or 'nhc clear CHECK')")
            .defaultValue(Duration.ofMinutes(10))
            .check(d -> d.isNegative() || d.isZero() ? "must be longer than 0" : d.compareTo(Duration.ofDays(1)) > 0 ? "must be at most 24h" : null);
    static final ParamSpec<Long> FLAP_BURST = ParamSpec.integer("flap_burst",
                    "link-downed events within flap_window that fail the port (fewer only warn)")
            .defaultValue(3L)
            .check(n -> n < 1 ? "must be at least 1" : n > 255 ? "must be at most 255 (the counter stops there)" : null);

    private static final ProbeSpec SPEC = buildSpec();

    private static ProbeSpec buildSpec() {
        ProbeSpec.Builder b = ProbeSpec.builder("ib.ports",
                        "InfiniBand and RoCE ports: state, physical state, rate, and link flaps between runs (sysfs; ibstat in a replay)")
                .tags(Tags.NETWORK, Tags.INFINIBAND)
                .entities(Entity.Kind.PORT, "one per port considered (port mlx5_0/1), and the node for the port count")
                .param(COUNT)
                .param(RATE)
                .param(EXACT_RATE)
                .param(DEVICES)
                .param(LINK_LAYER)
                .param(FLAP_WINDOW)
                .param(FLAP_BURST)
                .field("ports_found", Unit.COUNT, "node: ports considered (matching devices and link_layer)")
                .field("ports_other", Unit.COUNT, "node: ports present but not considered (another link layer or device)")
                .field("ports_up", Unit.COUNT, "node: ports considered that are Active (at 'rate' or faster when given; exactly, with exact_rate)")
                .field("ports_not_up", Unit.TEXT, "node: the ports considered that do not count, and why (absent when none)")
                .field("looked_for", Unit.TEXT, "node: which ports are considered, in words")
                .field("devices_missing", Unit.COUNT, "node: entries of 'devices' that match no port considered")
                .field("devices_missing_names", Unit.TEXT, "node: those entries, and why (absent when none)")
                .field("umad_loaded", Unit.BOOLEAN, "node: the user-space MAD interface is there (/sys/class/infiniband_mad/abi_version, "
                        + "not 0), which ibstat and the other diagnostics need (absent in a replay)")
                .field("state", Unit.TEXT, "port: logical state: DOWN, INIT, ARMED, ACTIVE (ACTIVE_DEFER)")
                .field("phys_state", Unit.TEXT, "port: physical state: Polling, Disabled, LinkUp, LinkErrorRecovery…")
                .field("active", Unit.BOOLEAN, "port: state is ACTIVE")
                .field("expected_active", Unit.BOOLEAN, "port: it must be Active by itself (true for every port considered when 'count' is not set)")
                .field("rate", Unit.COUNT, "port: data rate in Gb/s (active width × speed)")
                .field("speed", Unit.TEXT, "port: width and speed, e.g. 4X NDR (absent in ibstat output)")
                .field("link_layer", Unit.TEXT, "port: InfiniBand or Ethernet")
                .field("netdev", Unit.TEXT, "port: the network device of a RoCE port");
        for (String c : SysfsIbPorts.COUNTERS) {
            b.field(c, Unit.COUNT, "port: the " + c + " counter (absent in ibstat output)");
        }
        b.field("link_downed_increase", Unit.COUNT, "port: times the link went down since the previous run")
                .field("link_error_recovery_increase", Unit.COUNT, "port: link error recoveries since the previous run")
                .field("link_downed_in_window", Unit.COUNT, "port: times the link went down within flap_window");
        for (String c : RATED) {
            b.field(c + "_rate", Unit.PER_MINUTE, "port: " + c + " per minute since the previous run");
        }
        for (String c : SysfsIbPorts.COUNTERS) {
            b.optional(c); // absent in ibstat output, and where a driver has no such counter
        }
        for (String c : RATED) {
            b.optional(c + "_rate");
        }
        return b
                .reportedFor(Entity.Kind.NODE, "ports_found", "ports_other", "ports_up", "ports_not_up", "looked_for", "devices_missing",
                        "devices_missing_names", "umad_loaded")
                .reportedFor(Entity.Kind.PORT, "state", "phys_state", "active", "expected_active", "rate", "speed", "link_layer", "netdev")
                .optional("ports_not_up", "devices_missing", "devices_missing_names", "umad_loaded", "rate", "speed", "netdev", "link_downed_increase",
                        "link_error_recovery_increase", "link_downed_in_window")
                .rule(DefaultRule.fail(Map.of("ports_found", 0), "no {looked_for} found ({ports_other} other {ports_other|port|ports} present)"))
                .rule(DefaultRule.fail(Map.of("devices_missing", "> 0"), "devices without a port to check: {devices_missing_names}")
                        .remedy(Remedy.HARDWARE))
                .rule(DefaultRule.fail(Map.of("ports_up", "< {with.count}"), "only {ports_up} of {with.count} {with.count|port|ports} up: {ports_not_up}")
                        .remedy(Remedy.HARDWARE))
                .rule(DefaultRule.fail(AllOf.of("expected_active", true, "active", false, "phys_state", "!= LinkUp"),
                        "{entity} is {state} ({phys_state}), expected ACTIVE").remedy(Remedy.HARDWARE))
                .rule(DefaultRule.fail(Map.of("link_downed_in_window", ">= {with.flap_burst}"),
                        "{entity} is flapping: link_downed +{link_downed_in_window} within {with.flap_window}").remedy(Remedy.HARDWARE))
                .rule(DefaultRule.warn(AllOf.of("expected_active", true, "active", false, "phys_state", "LinkUp"),
                        "{entity} is {state}: the link is up but the subnet manager has not activated it"))
                .rule(DefaultRule.warn(AllOf.of("expected_active", true, "active", true, "rate", "< {with.rate}"),
                        "{entity} is active at {rate} Gb/s, below the expected {with.rate} Gb/s"))
                .rule(DefaultRule.warn(Map.of("link_downed_increase", "> 0"),
                        "{entity} link went down since the previous run (link_downed +{link_downed_increase})"))
                .rule(DefaultRule.warn(Map.of("link_error_recovery_increase", "> 0"),
                        "{entity} retrained after link errors since the previous run (link_error_recovery +{link_error_recovery_increase})"))
                .build();
    }

    @Override
    public ProbeSpec spec() {
        return SPEC;
    }

    @Override
    public ProbeResult probe(ProbeContext ctx) throws IOException {
        Params p = ctx.params();
        Long count = COUNT.get(p);
        Long rate = RATE.get(p);
        List<Pattern> devices = DEVICES.get(p);
        String layer = LINK_LAYER.get(p);
        boolean exact = EXACT_RATE.get(p);
        IbPortsSource source = ctx.service(IbPortsSource.class).orElseGet(() -> new SysfsIbPorts(ctx.sys(CLASS_DIR)));
        List<IbPort> all = source.ports();
        PortHistory history = source.hasCounters() ? new PortHistory(ctx.state(), ctx.clock().instant(), FLAP_WINDOW.get(p)) : null;

        List<Observation> ports = new ArrayList<>();
        List<String> notUp = new ArrayList<>();
        Set<String> present = new HashSet<>();
        long found = 0;
        long up = 0;
        for (IbPort port : all) {
            present.add(port.id());
            if (!matches(port, devices)) {
                continue;
            }
            if (!port.readable()) {
                // Its link layer is unknown, so it is considered whatever link_layer says.
                found++;
                notUp.add(port.id() + " (unreadable)");
                ports.add(Observation.unreadable(entity(port), port.problem()));
                continue;
            }
            if (!layerMatches(port, layer)) {
                continue;
            }
            found++;
            boolean fast = rate == null || (port.rateGbps() != null && (exact ? port.rateGbps() == rate.doubleValue() : port.rateGbps() >= rate));
            if (port.active() && fast) {
                up++;
            } else {
                notUp.add(port.active() ? port.id() + " at " + (port.rateGbps() == null ? "an unknown rate" : Rates.show(port.rateGbps()) + " Gb/s")
                        : port.id() + " " + port.state() + " (" + port.physState() + ")");
            }
            ports.add(observe(port, count == null || source.partial(), history));
        }
        if (history != null) {
            // A device whose ports could not be listed this time still has them: keep their flap window.
            Set<String> unlisted = new HashSet<>();
            for (IbPort port : all) {
                if (!port.readable() && port.port() == IbPort.NO_PORT) {
                    unlisted.add(port.device() + "/");
                }
            }
            for (String key : ctx.state().snapshot().keySet()) {
                int slash = key.indexOf('/');
                boolean kept = present.contains(key) || (slash > 0 && unlisted.contains(key.substring(0, slash + 1)));
                if (!kept) {
                    ctx.state().remove(key); // a port that is gone: its counters mean nothing any more
                }
            }
        }
        if (count != null && found < count) {
            long missing = count - found;
            notUp.add(missing == 1 ? "1 port not found" : missing + " ports not found");
        }
        Observation.Builder node = Observation.of(Entity.NODE)
                .put("ports_found", source.partial() ? null : found)
                .put("ports_other", (long) all.size() - found)
                .put("ports_up", source.partial() ? null : up)
                .put("ports_not_up", notUp.isEmpty() ? null : named(notUp))
                .put("looked_for", lookedFor(layer, devices))
                .put("umad_loaded", source.hasCounters() ? umadLoaded(ctx) : null);
        if (devices != null) {
            List<String> missing = missingDevices(all, devices, layer);
            node.put("devices_missing", (long) missing.size()).put("devices_missing_names", missing.isEmpty() ? null : named(missing));
        }
        ProbeResult.Builder out = ProbeResult.builder();
        List<String> problems = source.problems();
        if (source.partial()) {
            // cut short: how many ports the node has is not in the capture; each port shown is judged by itself
            out.observe(Observation.unreadable(Entity.NODE, "the capture is cut short: ports it does not show are not known to be up"));
        }
        // A capture that showed no port at all, only lines that are not ibstat's, counts nothing.
        out.observe(problems.isEmpty() || !all.isEmpty() ? node.build() : Observation.unreadable(Entity.NODE, String.join("; ", problems)));
        if (!all.isEmpty()) {
            problems.forEach(problem -> out.observe(Observation.unreadable(Entity.NODE, problem)));
        }
        ports.forEach(out::observe);
        return out.build();
    }

    private static Observation observe(IbPort port, boolean expectedActive, PortHistory history) {
        Observation.Builder o = Observation.of(entity(port))
                .put("state", port.state())
                .put("phys_state", port.physState())
                .put("active", port.active())
                .put("expected_active", expectedActive)
                .put("rate", port.rateGbps())
                .put("speed", port.linkSpeed())
                .put("link_layer", port.linkLayer())
                .put("netdev", port.netdev());
        port.counters().forEach(o::put);
        if (history != null) {
            PortHistory.Change change = history.record(port.id(), port.counters());
            o.put("link_downed_increase", change.increases().get("link_downed"))
                    .put("link_error_recovery_increase", change.increases().get("link_error_recovery"));
            if (port.counters().containsKey("link_downed")) {
                o.put("link_downed_in_window", change.flapsInWindow());
            }
            for (String c : RATED) {
                o.put(c + "_rate", change.perMinute().get(c));
            }
        }
        return o.build();
    }

    /** LBNL NHC's check_hw_ib fails without it: "version mismatch between kernel OFED drivers and userspace OFED libraries". */
    private static boolean umadLoaded(ProbeContext ctx) {
        try {
            String v = java.nio.file.Files.readString(ctx.sys(UMAD_ABI)).strip();
            return !v.isEmpty() && !v.matches("0+");
        } catch (IOException e) {
            return false;
        }
    }

    static Entity entity(IbPort port) {
        return port.port() == IbPort.NO_PORT ? Entity.of(Entity.Kind.PORT, port.device(), "device " + port.device())
                : Entity.of(Entity.Kind.PORT, port.id(), "port " + port.id());
    }

    private static boolean matches(IbPort port, List<Pattern> devices) {
        if (devices == null) {
            return true;
        }
        for (Pattern g : devices) {
            if (named(port, g)) {
                return true;
            }
        }
        return false;
    }

    /** A port is named by its device (mlx5_0), its id (mlx5_0/1) or LBNL NHC's form of it (mlx5_0:1, what check_hw_ib compares). */
    private static boolean named(IbPort port, Pattern g) {
        return g.matcher(port.device()).matches() || g.matcher(port.id()).matches()
                || g.matcher(port.device() + ":" + port.port()).matches();
    }

    /** Why a 'devices' list cannot name ports, or null: check-config refuses a name no port could ever have. */
    static String deviceNamesProblem(List<Pattern> devices) {
        if (devices.isEmpty()) {
            return "list at least one device name or glob, or leave 'devices' out for every device";
        }
        for (Pattern g : devices) {
            String name = Globs.show(g);
            if (!DEVICE_NAME.matcher(name).matches()) {
                return "'" + name + "' is not a device (mlx5_0), a device and port (mlx5_0/1, or LBNL NHC's mlx5_0:1), or a glob of them";
            }
        }
        return null;
    }

    private static boolean layerMatches(IbPort port, String layer) {
        return switch (layer) {
            case "ethernet" -> port.ethernet();
            case "any" -> true;
            default -> port.infiniband();
        };
    }

    /** Entries of {@code devices} that match no port considered, each with why: not there at all, or only of the other link layer. */
    private static List<String> missingDevices(List<IbPort> all, List<Pattern> devices, String layer) {
        List<String> out = new ArrayList<>();
        for (Pattern g : devices) {
            boolean any = false;
            boolean considered = false;
            for (IbPort port : all) {
                if (named(port, g)) {
                    any = true;
                    considered |= !port.readable() || layerMatches(port, layer);
                }
            }
            if (!considered) {
                out.add(Globs.show(g) + (any ? " (no " + layerWord(layer) + " port)" : " (not found)"));
            }
        }
        return out;
    }

    private static String lookedFor(String layer, List<Pattern> devices) {
        String ports = switch (layer) {
            case "ethernet" -> "Ethernet (RoCE) ports";
            case "any" -> "InfiniBand or RoCE ports";
            default -> "InfiniBand ports";
        };
        return devices == null ? ports : ports + " of " + Globs.show(devices);
    }

    private static String layerWord(String layer) {
        return layer.equals("ethernet") ? "Ethernet" : "InfiniBand";
    }

    private static String named(List<String> items) {
        if (items.size() <= NAMED_MAX) {
            return String.join(", ", items);
        }
        return String.join(", ", items.subList(0, NAMED_MAX)) + " and " + (items.size() - NAMED_MAX) + " more";
    }
}
