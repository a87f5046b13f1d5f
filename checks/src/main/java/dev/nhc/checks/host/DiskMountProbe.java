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
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code disk.mount}: a mount point is mounted, from the expected source, with the expected type
 * and options. The last table entry for a mount point is the one in effect (a later mount hides an
 * earlier one). The probe observes what is mounted and how it compares with the expectations that
 * text equality cannot judge (a source named by label, options in any order); the default rules
 * turn each mismatch into a FAIL that names what was expected and what is there.
 */
public final class DiskMountProbe implements Probe {
    static final ParamSpec<String> MOUNT = ParamSpec.text("mount", "mount point, e.g. /scratch").required().check(MountTable::notAbsolute);
    static final ParamSpec<String> FSTYPE = ParamSpec.text("fstype", "expected filesystem type, e.g. xfs, nfs4, lustre")
            .check(t -> t.matches("[^\\s,]+") ? null : "'" + t + "' is not a filesystem type such as xfs or nfs4 (one word)");
    static final ParamSpec<String> SOURCE = ParamSpec.text("source",
                    "expected source: a device (/dev/nvme0n1p1, UUID=…, LABEL=…; symlinks are followed), server:/export, or a name such as tmpfs")
            .check(t -> t.isBlank() ? "the expected source is empty" : null);
    static final ParamSpec<List<String>> OPTIONS = ParamSpec.texts("options",
                    "options that must be present, e.g. [rw, nosuid] or [vers=4.2]; rw fails on a read-only mount")
            .check(DiskMountProbe::badOptions);
    static final ParamSpec<Boolean> TRIGGER_AUTOMOUNT = ParamSpec.flag("trigger_automount",
                    "look a name up under the mount point first, so that the automounter mounts it (LBNL NHC's check_fs_mount -F)")
            .defaultValue(false);

    private static final String NOT_MOUNTED = "{entity} is not mounted";

    private static final ProbeSpec SPEC = ProbeSpec.builder("disk.mount",
                    "A filesystem is mounted where expected, from the expected source, with the expected type and "
                            + "options, as /proc/self/mounts shows it. List rw under options to fail when the "
                            + "filesystem is (re)mounted read-only, as the kernel does after I/O errors.")
            .tags(Tags.HOST, Tags.STORAGE)
            .entities(Entity.Kind.MOUNT, "the mount point given by 'mount'")
            .param(MOUNT)
            .param(FSTYPE)
            .param(SOURCE)
            .param(OPTIONS)
            .param(TRIGGER_AUTOMOUNT)
            .field("mounted", Unit.BOOLEAN, "whether the mount point is in the mount table (when not, no other field is reported)")
            .field("fstype", Unit.TEXT, "filesystem type")
            .field("source", Unit.TEXT, "what is mounted (device, server:/export, …)")
            .field("options", Unit.TEXT, "mount options, comma separated")
            .field("read_only", Unit.BOOLEAN, "mounted read-only (option ro)")
            .field("source_matches", Unit.BOOLEAN, "the source is the expected one, or another name of the same device "
                    + "(only with 'source')")
            .field("options_match", Unit.BOOLEAN, "every option listed in 'options' is in effect (only with 'options')")
            .field("options_missing", Unit.TEXT, "the options listed in 'options' that are not in effect, comma separated "
                    + "(only when some are missing)")
            .optional("source_matches", "options_match", "options_missing")
            .rule(DefaultRule.fail(Map.of("mounted", false), NOT_MOUNTED))
            .rule(DefaultRule.fail(AllOf.of("fstype", "!= {with.fstype}", "source_matches", false),
                    "{entity} is {fstype} (expected {with.fstype}) and mounted from {source} (expected {with.source})"))
            .rule(DefaultRule.fail(Map.of("fstype", "!= {with.fstype}"), "{entity} is {fstype} (expected {with.fstype})"))
            .rule(DefaultRule.fail(Map.of("source_matches", false), "{entity} is mounted from {source} (expected {with.source})"))
            // The common case gets its own words: the kernel remounts a filesystem read-only after I/O errors.
            .rule(DefaultRule.fail(AllOf.of("read_only", true, "options_missing", "~ (^|,)rw(,|$)"), "{entity} is mounted read-only (expected rw)"))
            .rule(DefaultRule.fail(AllOf.of("read_only", false, "options_missing", "~ (^|,)ro(,|$)"), "{entity} is mounted read-write (expected ro)"))
            .rule(DefaultRule.fail(Map.of("options_match", false), "{entity} lacks mount option {options_missing} (has {options})"))
            // A check whose own fail: replaces the rules above still must not pass a filesystem that is not there.
            .rule(DefaultRule.unknown(Map.of("mounted", false), NOT_MOUNTED))
            .build();

    @Override
    public ProbeSpec spec() {
        return SPEC;
    }

    @Override
    public ProbeResult probe(ProbeContext ctx) throws Exception {
        String mount = MountTable.normalize(MOUNT.get(ctx.params()));
        Entity entity = Entity.of(Entity.Kind.MOUNT, mount);
        if (TRIGGER_AUTOMOUNT.get(ctx.params())) {
            // A lookup in an autofs directory is what makes the automounter mount it; the name need not exist.
            Files.exists(ctx.sys(mount).resolve(".nhc-automount-trigger"));
        }
        Optional<MountTable.Mount> found = MountTable.read(ctx).find(mount);
        if (found.isEmpty()) {
            return ProbeResult.of(Observation.of(entity).put("mounted", false).build());
        }
        MountTable.Mount m = found.get();
        Observation.Builder o = Observation.of(entity)
                .put("mounted", true)
                .put("fstype", m.fstype())
                .put("source", m.source())
                .put("options", String.join(",", m.options()))
                .put("read_only", m.readOnly());
        String source = SOURCE.get(ctx.params());
        if (source != null) {
            o.put("source_matches", sameSource(ctx, source, m.source()));
        }
        List<String> expected = OPTIONS.get(ctx.params());
        if (expected != null) {
            List<String> missing = new ArrayList<>();
            for (String option : expected) {
                if (!m.options().contains(option)) {
                    missing.add(option);
                }
            }
            o.put("options_match", missing.isEmpty());
            if (!missing.isEmpty()) {
                o.put("options_missing", String.join(",", missing));
            }
        }
        return ProbeResult.of(o.build());
    }

    /** One option per item: "rw,nosuid" as one item could never be found among the table's options. */
    static String badOptions(List<String> options) {
        for (String option : options) {
            if (option.isBlank() || option.contains(",") || !option.strip().equals(option)) {
                return "'" + option + "' is not one mount option; write each as its own item, e.g. [rw, nosuid]";
            }
        }
        return null;
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
