package dev.nhc.checks.host;

import dev.nhc.model.Finding;
import dev.nhc.model.Observation;
import dev.nhc.model.Severity;
import dev.nhc.probe.ParamSpec;
import dev.nhc.probe.ParamType;
import dev.nhc.probe.Probe;
import dev.nhc.probe.ProbeContext;
import dev.nhc.probe.ProbeResult;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.units.Unit;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * {@code disk.mount}: a mount point is mounted, from the expected source, with the expected type
 * and options. The last table entry for a mount point is the one in effect (a later mount hides an
 * earlier one). All mismatches of one mount are reported together in one FAIL finding.
 */
public final class DiskMountProbe implements Probe {
    private static final ProbeSpec SPEC = ProbeSpec.builder("disk.mount",
                    "A filesystem is mounted where expected, from the expected source, with the expected type and "
                            + "options, as /proc/self/mounts shows it. List rw under options to fail when the "
                            + "filesystem is (re)mounted read-only, as the kernel does after I/O errors.")
            .entities("the mount point given by 'mount'")
            .param(ParamSpec.required("mount", ParamType.STRING, "mount point, e.g. /scratch"))
            .param(ParamSpec.optional("fstype", ParamType.STRING, null, "expected filesystem type, e.g. xfs, nfs4, lustre"))
            .param(ParamSpec.optional("source", ParamType.STRING, null,
                    "expected source: a device (/dev/nvme0n1p1, UUID=…, LABEL=…; symlinks are followed), server:/export, or a name such as tmpfs"))
            .param(ParamSpec.optional("options", ParamType.STRING_LIST, null,
                    "options that must be present, e.g. [rw, nosuid] or [vers=4.2]; rw fails on a read-only mount"))
            .field("mounted", Unit.BOOLEAN, "whether the mount point is in the mount table")
            .field("fstype", Unit.TEXT, "filesystem type")
            .field("source", Unit.TEXT, "what is mounted (device, server:/export, …)")
            .field("options", Unit.TEXT, "mount options, comma separated")
            .field("read_only", Unit.BOOLEAN, "mounted read-only (option ro)")
            .build();

    @Override
    public ProbeSpec spec() {
        return SPEC;
    }

    @Override
    public ProbeResult probe(ProbeContext ctx) throws Exception {
        String mount = MountTable.normalize(ctx.params().string("mount"));
        Optional<MountTable.Mount> found = MountTable.read(ctx).find(mount);
        ProbeResult.Builder result = ProbeResult.builder();
        if (found.isEmpty()) {
            return result.observe(Observation.of(mount).put("mounted", false).build())
                    .finding(Finding.of(mount, Severity.FAIL, mount + " is not mounted"))
                    .build();
        }
        MountTable.Mount m = found.get();
        result.observe(Observation.of(mount)
                .put("mounted", true)
                .put("fstype", m.fstype())
                .put("source", m.source())
                .put("options", String.join(",", m.options()))
                .put("read_only", m.readOnly())
                .build());
        List<String> problems = new ArrayList<>();
        String fstype = ctx.params().string("fstype");
        if (fstype != null && !fstype.equals(m.fstype())) {
            problems.add(mount + " is " + m.fstype() + " (expected " + fstype + ")");
        }
        String source = ctx.params().string("source");
        if (source != null && !sameSource(ctx, source, m.source())) {
            problems.add(mount + " is mounted from " + m.source() + " (expected " + source + ")");
        }
        for (String option : ctx.params().strings("options")) {
            String problem = optionProblem(mount, option, m.options());
            if (problem != null) {
                problems.add(problem);
            }
        }
        if (!problems.isEmpty()) {
            result.finding(Finding.of(mount, Severity.FAIL, String.join("; ", problems)));
        }
        return result.build();
    }

    static String optionProblem(String mount, String want, List<String> have) {
        if (have.contains(want)) {
            return null;
        }
        if (want.equals("rw") && have.contains("ro")) {
            return mount + " is mounted read-only (expected rw)";
        }
        if (want.equals("ro") && have.contains("rw")) {
            return mount + " is mounted read-write (expected ro)";
        }
        int eq = want.indexOf('=');
        if (eq > 0) {
            String key = want.substring(0, eq + 1);
            for (String h : have) {
                if (h.startsWith(key)) {
                    return mount + " has " + h + " (expected " + want + ")";
                }
            }
        }
        return mount + " lacks mount option " + want + " (has " + String.join(",", have) + ")";
    }

    /**
     * Equal text, or two names of the same device: fstab's UUID=/LABEL= forms and udev's symlinks
     * are resolved under the system root, so /dev/disk/by-label/scratch matches /dev/nvme1n1.
     */
    static boolean sameSource(ProbeContext ctx, String want, String have) {
        if (want.equals(have)) {
            return true;
        }
        Path a = device(ctx, want);
        Path b = device(ctx, have);
        if (a == null || b == null) {
            return false;
        }
        try {
            return a.toRealPath().equals(b.toRealPath());
        } catch (IOException e) {
            return false;
        }
    }

    private static Path device(ProbeContext ctx, String name) {
        if (name.startsWith("UUID=")) {
            return ctx.sys("/dev/disk/by-uuid/" + name.substring(5));
        }
        if (name.startsWith("LABEL=")) {
            return ctx.sys("/dev/disk/by-label/" + name.substring(6));
        }
        if (name.startsWith("PARTUUID=")) {
            return ctx.sys("/dev/disk/by-partuuid/" + name.substring(9));
        }
        return name.startsWith("/dev/") ? ctx.sys(name) : null;
    }
}
