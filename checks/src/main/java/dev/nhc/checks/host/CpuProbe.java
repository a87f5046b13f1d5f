package dev.nhc.checks.host;

import dev.nhc.model.Entity;
import dev.nhc.model.Observation;
import dev.nhc.model.Remedy;
import dev.nhc.probe.DefaultRule;
import dev.nhc.probe.ParamSpec;
import dev.nhc.probe.Probe;
import dev.nhc.probe.ProbeContext;
import dev.nhc.probe.ProbeResult;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.probe.Tags;
import dev.nhc.units.Unit;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;

/**
 * {@code cpu}: how many sockets, cores and hardware threads are online, from sysfs.
 *
 * <p>Instead of reading each CPU's package and core id (512 files on 256 threads) this reads one sibling list
 * per core and one per socket: every CPU a list names is already counted, so a 2-socket, 128-core
 * SMT-2 node costs about 130 small reads.
 *
 * <p>Measured on a 256-thread test tree (2 × 64 × 2): the first call in a fresh C1 JVM, classes
 * already loaded, median of 12–15 runs on the 2-core build machine under load 8–12 (so noisy):
 * this probe 17 ms; the same sibling lists read with java.nio Files 62 ms (hence the plain
 * FileInputStream in {@link SysFiles#readSmall}); every CPU's package and core id, 512 files, 59–97
 * ms; a 400 KB /proc/cpuinfo parsed from a plain file 11–17 ms. cpuinfo is as fast only as a file:
 * the real one is generated on each read (about 25 µs per CPU on this VM, 6 ms for 256, and far
 * more on kernels that sample every CPU's clock by IPI), where a sysfs list is one small read of
 * about 20 µs; and arm64's cpuinfo has no package or core ids. So: sysfs, with the cheap read.
 */
public final class CpuProbe implements Probe {
    static final String CPU = "/sys/devices/system/cpu";

    static final ParamSpec<Long> SOCKETS = ParamSpec.integer("sockets", "expected number of sockets (physical packages)")
            .check(CpuProbe::atLeastOne);
    static final ParamSpec<Long> CORES = ParamSpec.integer("cores", "expected number of physical cores, all sockets together")
            .check(CpuProbe::atLeastOne);
    static final ParamSpec<Long> THREADS = ParamSpec.integer("threads", "expected number of hardware threads (logical CPUs), all online")
            .check(CpuProbe::atLeastOne);

    private static final String TOPOLOGY = CPU + "/cpu*/topology";

    private static final ProbeSpec SPEC = ProbeSpec.builder("cpu",
                    "Online CPU sockets, cores and hardware threads from /sys/devices/system/cpu. With expected "
                            + "counts, fewer fails (a CPU taken offline, SMT switched off, a socket or cores lost) "
                            + "and more warns (the config does not match this node).")
            .tags(Tags.HOST)
            .entities(Entity.Kind.NODE, "node")
            .param(SOCKETS)
            .param(CORES)
            .param(THREADS)
            .field("sockets", Unit.COUNT, "sockets with at least one online CPU")
            .field("cores", Unit.COUNT, "physical cores with at least one online CPU")
            .field("threads", Unit.COUNT, "logical CPUs online")
            .field("online", Unit.TEXT, "the online CPUs as the kernel lists them, e.g. 0-255")
            .field("offline", Unit.COUNT, "CPUs present but offline (SMT switched off counts its siblings here)")
            .field("numa_nodes", Unit.COUNT, "NUMA nodes the kernel knows (/sys/devices/system/node/nodeN; absent without NUMA support)")
            .field("smt_active", Unit.BOOLEAN, "whether SMT (hyper-threading) is active")
            .field("smt_control", Unit.TEXT, "the kernel's SMT switch: on, off, forceoff, notsupported or notimplemented")
            .field("uncounted", Unit.TEXT, "the expected counts (sockets, cores) that cannot be taken here because "
                    + TOPOLOGY + " is not available (some containers and VMs)")
            // A lost socket or core is hardware; missing threads alone are usually SMT or a CPU taken offline.
            .optional("offline", "smt_active", "smt_control", "uncounted", "numa_nodes")
            .rule(DefaultRule.fail(Map.of("sockets", "< {with.sockets}"),
                    "{sockets} of {with.sockets} {with.sockets|socket|sockets} online ({cores} {cores|core|cores}, {threads} {threads|thread|threads}; online: {online})").remedy(Remedy.HARDWARE))
            .rule(DefaultRule.fail(Map.of("cores", "< {with.cores}"),
                    "{cores} of {with.cores} {with.cores|core|cores} online ({threads} {threads|thread|threads}; online: {online}; {offline} offline)").remedy(Remedy.HARDWARE))
            .rule(DefaultRule.fail(AllOf.of("threads", "< {with.threads}", "smt_control", "~ off"),
                    "{threads} {threads|thread|threads}, expected {with.threads} (online: {online}; SMT is {smt_control}; {offline} offline)"))
            .rule(DefaultRule.fail(Map.of("threads", "< {with.threads}"),
                    "{threads} {threads|thread|threads}, expected {with.threads} (online: {online}; {offline} offline)"))
            .rule(DefaultRule.warn(Map.of("sockets", "> {with.sockets}"), "{sockets} {sockets|socket|sockets}, expected {with.sockets} (online: {online})"))
            .rule(DefaultRule.warn(Map.of("cores", "> {with.cores}"), "{cores} {cores|core|cores}, expected {with.cores} (online: {online})"))
            .rule(DefaultRule.warn(Map.of("threads", "> {with.threads}"), "{threads} {threads|thread|threads}, expected {with.threads} (online: {online})"))
            .rule(DefaultRule.unknown(Map.of("uncounted", "~ ."), "cannot count {uncounted}: " + TOPOLOGY + " is not available here"))
            .build();

    @Override
    public ProbeSpec spec() {
        return SPEC;
    }

    @Override
    public ProbeResult probe(ProbeContext ctx) throws Exception {
        String onlineText = SysFiles.read(ctx, CPU + "/online").trim();
        BitSet online = parseList(ctx, CPU + "/online", onlineText);
        String presentText = SysFiles.readIfExists(ctx.sys(CPU + "/present"));
        BitSet present = presentText == null ? null : parseList(ctx, CPU + "/present", presentText);
        String smt = SysFiles.readIfExists(ctx.sys(CPU + "/smt/active"));
        String smtControl = SysFiles.readIfExists(ctx.sys(CPU + "/smt/control"));

        // Kernels before 5.x name these thread_siblings_list and core_siblings_list.
        Integer cores = countGroups(ctx, online, "core_cpus_list", "thread_siblings_list");
        Integer sockets = countGroups(ctx, online, "package_cpus_list", "core_siblings_list");
        return ProbeResult.of(Observation.of(Entity.NODE)
                .put("sockets", sockets)
                .put("cores", cores)
                .put("threads", online.cardinality())
                .put("online", onlineText)
                .put("offline", present == null ? null : offline(present, online))
                .put("numa_nodes", numaNodes(ctx))
                .put("smt_active", smt == null ? null : smt.trim().equals("1"))
                .put("smt_control", smtControl == null ? null : smtControl.trim())
                .put("uncounted", uncounted(ctx, sockets, cores))
                .build());
    }

    /** The expected counts this node's sysfs cannot give, so that the check says it cannot decide rather than pass. */
    private static String uncounted(ProbeContext ctx, Integer sockets, Integer cores) {
        List<String> out = new ArrayList<>();
        if (sockets == null && SOCKETS.get(ctx.params()) != null) {
            out.add("sockets");
        }
        if (cores == null && CORES.get(ctx.params()) != null) {
            out.add("cores");
        }
        return out.isEmpty() ? null : String.join(", ", out);
    }

    /** The nodeN directories of /sys/devices/system/node, as lscpu lists a "NUMA nodeN CPU(s)" line for each; null without the directory. */
    private static Long numaNodes(ProbeContext ctx) throws IOException {
        java.nio.file.Path dir = ctx.sys("/sys/devices/system/node");
        if (!java.nio.file.Files.isDirectory(dir)) {
            return null;
        }
        try (var s = java.nio.file.Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().matches("node[0-9]+")).count();
        }
    }

    private static String atLeastOne(Long n) {
        return n < 1 ? "must be at least 1" : null;
    }

    private static int offline(BitSet present, BitSet online) {
        BitSet off = (BitSet) present.clone();
        off.andNot(online);
        return off.cardinality();
    }

    /**
     * Counts the groups (cores or packages) that online CPUs form, reading one sibling list per
     * group. Null when the topology is not exposed (some containers and VMs), so the field is absent.
     */
    static Integer countGroups(ProbeContext ctx, BitSet online, String file, String olderFile) throws IOException {
        BitSet uncounted = (BitSet) online.clone();
        String base = ctx.sys(CPU).toString();
        byte[] buf = new byte[4096];
        int groups = 0;
        for (int cpu = uncounted.nextSetBit(0); cpu >= 0; cpu = uncounted.nextSetBit(cpu + 1)) {
            String dir = base + "/cpu" + cpu + "/topology/";
            String p = dir + file;
            String text = SysFiles.readSmall(p, buf);
            if (text == null) {
                p = dir + olderFile;
                text = SysFiles.readSmall(p, buf);
            }
            if (text == null) {
                return null;
            }
            BitSet siblings = parseList(Path.of(p), text);
            siblings.set(cpu);
            uncounted.andNot(siblings);
            groups++;
        }
        return groups;
    }

    private static BitSet parseList(ProbeContext ctx, String absolutePath, String text) throws IOException {
        return parseList(ctx.sys(absolutePath), text);
    }

    private static BitSet parseList(Path p, String text) throws IOException {
        try {
            return CpuList.parse(text);
        } catch (IllegalArgumentException e) {
            throw new IOException(p + ": " + e.getMessage(), e);
        }
    }
}
