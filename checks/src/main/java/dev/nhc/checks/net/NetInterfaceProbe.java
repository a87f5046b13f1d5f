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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * {@code net.interface}: network interfaces from {@code /sys/class/net} (Ethernet, IPoIB, bonds,
 * bridges, loopback): that each name given is there, and, when asked, that the interfaces are up,
 * at a speed and with an MTU. LBNL NHC's {@code check_hw_eth DEV} is the presence test alone (it
 * reads the same list from {@code /proc/net/dev}). The verdicts are the default rules; the probe only
 * observes.
 *
 * <p>Up is what ibdev2netdev and {@code ip link} show: operstate "up" (RFC 2863), or "unknown" for
 * drivers that do not track it (loopback, many virtual devices) while the interface is
 * administratively up. A link that is down has no speed (the kernel answers -1 or EINVAL), so
 * {@code speed} is judged only where the driver reports one.
 */
public final class NetInterfaceProbe implements Probe {
    static final String CLASS_DIR = "/sys/class/net";

    static final ParamSpec<List<Pattern>> NAME = ParamSpec.globs("name",
                    "interface name or glob, or a list of them (e.g. ib0, [eth0, \"ib*\"]): each must match an interface")
            .required()
            .check(l -> l.isEmpty() ? "name at least one interface or glob" : null);
    static final ParamSpec<Boolean> UP = ParamSpec.flag("up", "every matching interface must be up").defaultValue(false);
    static final ParamSpec<Long> SPEED = ParamSpec.integer("speed",
                    "the speed in Mb/s every matching interface must run at or above (e.g. 100000), where its driver reports one")
            .check(n -> n < 1 ? "must be at least 1 (Mb/s)" : n > 10_000_000 ? "must be a speed in Mb/s such as 100000" : null);
    static final ParamSpec<Long> MTU = ParamSpec.integer("mtu", "the MTU every matching interface must have (e.g. 9000, or 4092 for IPoIB)")
            .check(n -> n < 68 ? "must be at least 68 (the IPv4 minimum)" : n > 1_000_000 ? "must be an MTU in bytes such as 9000" : null);

    private static final ProbeSpec SPEC = ProbeSpec.builder("net.interface",
                    "Network interfaces (/sys/class/net): present, and when asked up, at a speed, with an MTU")
            .tags(Tags.HOST, Tags.NETWORK)
            .entities(Entity.Kind.DEVICE, "one per matching interface (interface ib0), and the node for what is missing")
            .param(NAME)
            .param(UP)
            .param(SPEED)
            .param(MTU)
            .field("interfaces_found", Unit.COUNT, "node: interfaces that match a name")
            .field("names_missing", Unit.COUNT, "node: names (or globs) that match no interface")
            .field("names_missing_list", Unit.TEXT, "node: those names (absent when none)")
            .field("operstate", Unit.TEXT, "interface: operational state: up, down, dormant, lowerlayerdown, notpresent, testing or unknown")
            .field("up", Unit.BOOLEAN, "interface: up (operstate up, or unknown while administratively up with carrier)")
            .field("admin_up", Unit.BOOLEAN, "interface: administratively up (IFF_UP)")
            .field("carrier", Unit.BOOLEAN, "interface: the link has carrier (absent while administratively down)")
            .field("speed", Unit.COUNT, "interface: speed in Mb/s (absent where the driver reports none, e.g. while the link is down)")
            .field("mtu", Unit.COUNT, "interface: MTU in bytes")
            .field("link_type", Unit.COUNT, "interface: ARPHRD link type: 1 Ethernet, 32 InfiniBand, 772 loopback")
            .reportedFor(Entity.Kind.NODE, "interfaces_found", "names_missing")
            .reportedFor(Entity.Kind.DEVICE, "operstate", "up", "admin_up", "mtu", "link_type")
            .optional("names_missing_list", "carrier", "speed")
            .rule(DefaultRule.fail(Map.of("names_missing", "> 0"), "no interface {names_missing_list}").remedy(Remedy.HARDWARE))
            .rule(DefaultRule.fail(Map.of("up", false), "{entity} is {operstate}, expected up").remedy(Remedy.HARDWARE).when("up", true))
            .rule(DefaultRule.fail(AllOf.of("up", true, "speed", "< {with.speed}"), "{entity} runs at {speed} Mb/s, below {with.speed} Mb/s")
                    .remedy(Remedy.HARDWARE))
            .rule(DefaultRule.fail(Map.of("mtu", "!= {with.mtu}"), "{entity} has MTU {mtu}, expected {with.mtu}"))
            .build();

    @Override
    public ProbeSpec spec() {
        return SPEC;
    }

    @Override
    public ProbeResult probe(ProbeContext ctx) throws IOException {
        Params p = ctx.params();
        List<Pattern> names = NAME.get(p);
        List<NetInterface> all = new SysfsNetInterfaces(ctx.sys(CLASS_DIR)).interfaces();
        List<Observation> found = new ArrayList<>();
        for (NetInterface i : all) {
            if (names.stream().anyMatch(g -> g.matcher(i.name()).matches())) {
                found.add(observe(i));
            }
        }
        List<String> missing = new ArrayList<>();
        for (Pattern g : names) {
            if (all.stream().noneMatch(i -> g.matcher(i.name()).matches())) {
                missing.add(Globs.show(g));
            }
        }
        ProbeResult.Builder out = ProbeResult.builder().observe(Observation.of(Entity.NODE)
                .put("interfaces_found", (long) found.size())
                .put("names_missing", (long) missing.size())
                .put("names_missing_list", missing.isEmpty() ? null : String.join(", ", missing))
                .build());
        found.forEach(out::observe);
        return out.build();
    }

    private static Observation observe(NetInterface i) {
        Entity entity = Entity.of(Entity.Kind.DEVICE, i.name(), "interface " + i.name());
        if (!i.readable()) {
            return Observation.unreadable(entity, i.problem());
        }
        return Observation.of(entity)
                .put("operstate", i.operstate())
                .put("up", i.up())
                .put("admin_up", i.adminUp())
                .put("carrier", i.carrier())
                .put("speed", i.speedMbps())
                .put("mtu", i.mtu())
                .put("link_type", i.type())
                .build();
    }
}
