package dev.nhc.cli.sidebyside;

import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * The healthy node and the broken ones the side-by-side run compares on: each breaks one family of
 * what the configs check, everything of it at once, so that every translated line is seen both
 * passing and failing. What a variant does is what a real fault does: a lost socket and DIMM, ports
 * down and interfaces gone, filesystems remounted read-only from elsewhere and full, daemons dead and
 * forbidden ones running, files gone or stale, tools failing.
 */
final class Variants {
    record Variant(String name, UnaryOperator<FakeNode> change) {
    }

    private Variants() {
    }

    static List<Variant> all(List<FakeNode.Proc> forbidden) {
        return List.of(
                new Variant("healthy", n -> n),
                new Variant("hardware", Variants::hardware),
                new Variant("network", Variants::network),
                new Variant("filesystems-wrong", Variants::filesystemsWrong),
                new Variant("filesystems-full", Variants::filesystemsFull),
                new Variant("filesystems-gone", Variants::filesystemsGone),
                new Variant("processes", n -> processes(n, forbidden)),
                new Variant("files", Variants::files),
                new Variant("tools", Variants::tools));
    }

    private static FakeNode hardware(FakeNode n) {
        n.sockets = Math.max(1, n.sockets - 1);
        n.memTotalKb /= 2;
        n.swapTotalKb = n.swapTotalKb > 0 ? 0 : 4L << 20;
        n.memFreeKb = 0;
        n.buffersKb = 0;
        n.cachedKb = 0;
        n.swapFreeKb = 0;
        return n;
    }

    private static FakeNode network(FakeNode n) {
        n.ports.replaceAll(p -> new FakeNode.IbPort(p.device(), p.port(), "1: DOWN", "3: Disabled", p.rate(), p.layer()));
        n.interfaces.clear();
        n.umad = false;
        return n;
    }

    /** Mounted from elsewhere, of another type, read-only (the kernel's own filesystems aside). */
    private static FakeNode filesystemsWrong(FakeNode n) {
        n.mounts.replaceAll(m -> List.of("/proc", "/sys", "/run").contains(m.point()) ? m
                : m.with("broken:/export" + m.point(), "fuse.broken", "ro,relatime"));
        return n;
    }

    /** Full to 99.9 % (df shows 100 %) with 10 inodes left; a filesystem of terabytes (a check_fs_size range) keeps its size instead. */
    private static FakeNode filesystemsFull(FakeNode n) {
        n.mounts.replaceAll(m -> m.real() && m.sizeKb() <= (4L << 20) ? m.filled(m.sizeKb() - m.sizeKb() / 1000, Math.max(0, m.inodes() - 10)) : m);
        return n;
    }

    /** Every filesystem but the kernel's own (a node without /proc is no node, and LBNL NHC misreads a one-line table). */
    private static FakeNode filesystemsGone(FakeNode n) {
        n.mounts.removeIf(m -> !List.of("/", "/proc", "/sys", "/run").contains(m.point()));
        return n;
    }

    private static FakeNode processes(FakeNode n, List<FakeNode.Proc> forbidden) {
        n.procs.clear();
        n.procs.addAll(forbidden);
        n.load1 = 100_000;
        return n;
    }

    private static FakeNode files(FakeNode n) {
        n.files.replaceAll((path, f) -> f.directory() ? new FakeNode.FileSpec(null, 0755, 0) : f);
        // LBNL NHC's sysconfig stays: the import took its values, and a node without it is another node (docs/lbnl-migration.md)
        n.files.entrySet().removeIf(e -> !e.getValue().directory() && !e.getKey().equals(FakeNode.SYSCONFIG));
        return n;
    }

    private static FakeNode tools(FakeNode n) {
        for (Map.Entry<String, FakeNode.StandIn> p : n.programs.entrySet()) {
            String output = switch (p.getKey()) {
                case "mcelog" -> "DIMM A1\ncorrected memory errors:\n\t325 total\n\t20 in 24h\nuncorrected memory errors:\n\t0 total\n\t0 in 24h\n";
                case "dmidecode" -> p.getValue().output().replaceAll("(?m)^(\t[^:\n]*: ).*$", "$1another");
                default -> "";
            };
            p.setValue(new FakeNode.StandIn(output, p.getKey().equals("mcelog") || p.getKey().equals("dmidecode") ? 0 : 15));
        }
        n.modules.clear();
        return n;
    }
}
