package dev.nhc.checks.host;

import dev.nhc.model.Entity;
import dev.nhc.model.Observation;
import dev.nhc.probe.DefaultRule;
import dev.nhc.probe.ParamSpec;
import dev.nhc.probe.Probe;
import dev.nhc.probe.ProbeContext;
import dev.nhc.probe.ProbeResult;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.probe.Tags;
import dev.nhc.units.Unit;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * {@code disk.nvme}: the NVMe drives the kernel has set up, counted from sysfs. A drive whose
 * controller resets and does not come back, or that is not enumerated after a reboot, loses its
 * block device: {@code disks} counts namespace 1 of each (nvme0n1, nvme1n1…), what
 * {@code ls /dev/nvme*n1} lists; partitions and the hidden per-path devices of multipath
 * (nvme0c0n1) are not counted.
 */
public final class NvmeProbe implements Probe {
    private static final Pattern CONTROLLER = Pattern.compile("nvme[0-9]+");
    private static final Pattern FIRST_NAMESPACE = Pattern.compile("nvme[0-9]+n1");
    private static final Pattern NAMESPACE = Pattern.compile("nvme[0-9]+n[0-9]+");
    private static final Entity DRIVES = Entity.of(Entity.Kind.DEVICE, "nvme", "NVMe drives");

    static final ParamSpec<Long> COUNT = ParamSpec.integer("count", "how many NVMe drives (namespace 1 block devices) this host must have; another number is a fail")
            .check(n -> n < 0 ? "must be 0 or more" : null);

    private static final ProbeSpec SPEC = ProbeSpec.builder("disk.nvme",
                    "NVMe controllers, drives and namespaces the kernel has (from /sys/class/nvme and /sys/class/block), against the expected count")
            .tags(Tags.HOST, Tags.STORAGE)
            .entities(Entity.Kind.DEVICE, "the node's NVMe drives as a whole ('NVMe drives')")
            .param(COUNT)
            .field("controllers", Unit.COUNT, "NVMe controllers (/sys/class/nvme/nvmeN)")
            .field("disks", Unit.COUNT, "NVMe drives: block devices of namespace 1 (/sys/class/block/nvmeNn1), as /dev/nvme*n1 lists them")
            .field("namespaces", Unit.COUNT, "NVMe namespace block devices (nvmeNnM), without partitions")
            .rule(DefaultRule.fail(Map.of("disks", "!= {with.count}"), "{disks} NVMe {disks|drive|drives} found, expected {with.count} "
                    + "(a drive missing is not enumerated or its controller failed; see dmesg for nvme)"))
            .build();

    @Override
    public ProbeSpec spec() {
        return SPEC;
    }

    @Override
    public ProbeResult probe(ProbeContext ctx) {
        Path block = ctx.sys("/sys/class/block");
        long disks;
        long namespaces;
        long controllers;
        try {
            disks = count(block, FIRST_NAMESPACE.asMatchPredicate());
            namespaces = count(block, NAMESPACE.asMatchPredicate());
        } catch (IOException e) {
            return ProbeResult.of(Observation.unreadable(DRIVES, "cannot list " + block + ": " + SysFiles.reason(e)));
        }
        Path nvme = ctx.sys("/sys/class/nvme");
        try {
            controllers = count(nvme, CONTROLLER.asMatchPredicate());
        } catch (NoSuchFileException e) {
            controllers = 0; // no NVMe driver loaded: the class appears with it
        } catch (IOException e) {
            return ProbeResult.of(Observation.unreadable(DRIVES, "cannot list " + nvme + ": " + SysFiles.reason(e)));
        }
        return ProbeResult.of(Observation.of(DRIVES)
                .put("controllers", controllers)
                .put("disks", disks)
                .put("namespaces", namespaces)
                .build());
    }

    private static long count(Path dir, Predicate<String> name) throws IOException {
        long n = 0;
        try (DirectoryStream<Path> s = Files.newDirectoryStream(dir)) {
            for (Path p : s) {
                if (name.test(p.getFileName().toString())) {
                    n++;
                }
            }
        }
        return n;
    }
}
