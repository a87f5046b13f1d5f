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
import java.nio.file.Path;
import java.util.Map;

/**
 * {@code disk.usage}: space and inodes of one mounted filesystem, computed like df(1).
 *
 * <p>The mount point must be in the mount table (read under the system root), otherwise statvfs
 * would silently measure the filesystem underneath (an unmounted /scratch is a directory on /).
 * statvfs itself is called on the node's real path, not under the system root: the root exists so
 * that tests can supply /proc files, and a mount table written for a test names real directories.
 */
public final class DiskUsageProbe implements Probe {
    /** Statvfs in production; tests pass a full or inode-less filesystem through the whole probe with it. */
    interface FsStat {
        /** {@code inodes}: whether inode counts are needed (they cost a native call through JNA). */
        Statvfs.Result stat(Path path, boolean inodes) throws IOException;
    }

    static final ParamSpec<String> MOUNT = ParamSpec.text("mount", "mount point to measure, e.g. / or /scratch (must be in /proc/self/mounts)")
            .required().check(MountTable::notAbsolute);

    private static final String NOT_MOUNTED = "{entity} is not mounted";

    private static final ProbeSpec SPEC = ProbeSpec.builder("disk.usage",
                    "Space and inodes of a mounted filesystem, as df and df -i compute them: used_percent is "
                            + "used / (used + available to users), so the blocks reserved for root count as full. "
                            + "Fails when the mount point is not mounted. A filesystem whose server does not answer "
                            + "(dead NFS) makes the check time out as UNKNOWN; disk.writable fails on that.")
            .tags(Tags.HOST, Tags.STORAGE)
            .entities(Entity.Kind.MOUNT, "the mount point given by 'mount'")
            .param(MOUNT)
            .field("mounted", Unit.BOOLEAN, "whether the mount point is in the mount table (when not, no other field is reported)")
            .field("used_percent", Unit.PERCENT, "space used, as df's Use% (reserved blocks excluded from the total)")
            .field("free_bytes", Unit.BYTES, "space available to unprivileged users (df's Avail)")
            .field("used_bytes", Unit.BYTES, "space in use (size minus all free blocks)")
            .field("size_bytes", Unit.BYTES, "size of the filesystem")
            .field("inodes_used_percent", Unit.PERCENT, "inodes used, as df -i's IUse% (absent where the filesystem has no fixed inode count, "
                    + "e.g. btrfs; read only when the check's rules or messages use an inode field)")
            .field("inodes_free", Unit.COUNT, "free inodes (absent where the filesystem has no fixed inode count; read only when the check's "
                    + "rules or messages use an inode field)")
            // 90 % leaves an admin time to act; at 98 % a single job's output or checkpoint can hit
            // ENOSPC (and ext4's root reserve no longer helps users: df's figure already excludes it).
            .rule(DefaultRule.fail(Map.of("used_percent", "> 98"), "{entity} is {used_percent} full ({free_bytes} free)"))
            .rule(DefaultRule.fail(Map.of("inodes_used_percent", "> 98"), "{entity} has used {inodes_used_percent} of its inodes ({inodes_free} left)"))
            .rule(DefaultRule.fail(Map.of("mounted", false), NOT_MOUNTED))
            .rule(DefaultRule.warn(Map.of("used_percent", "> 90"), "{entity} is {used_percent} full ({free_bytes} free)"))
            .rule(DefaultRule.warn(Map.of("inodes_used_percent", "> 90"), "{entity} has used {inodes_used_percent} of its inodes ({inodes_free} left)"))
            // A check whose own fail: replaces the rule above still must not pass a filesystem it could not measure.
            .rule(DefaultRule.unknown(Map.of("mounted", false), NOT_MOUNTED))
            .build();

    private final FsStat fsStat;

    public DiskUsageProbe() {
        // A lambda, not a method reference: Statvfs is loaded only when a disk.usage check
        // actually runs, not whenever the probe registry is built. Space alone comes from Java's
        // FileStore; only inode counts need statvfs through JNA (~40 ms of a cold start).
        this((path, inodes) -> inodes ? Statvfs.of(path) : Statvfs.viaFileStore(path));
    }

    DiskUsageProbe(FsStat fsStat) {
        this.fsStat = fsStat;
    }

    @Override
    public ProbeSpec spec() {
        return SPEC;
    }

    @Override
    public ProbeResult probe(ProbeContext ctx) throws Exception {
        String mount = MountTable.normalize(MOUNT.get(ctx.params()));
        Entity entity = Entity.of(Entity.Kind.MOUNT, mount);
        if (MountTable.read(ctx).find(mount).isEmpty()) {
            return ProbeResult.of(Observation.of(entity).put("mounted", false).build());
        }
        boolean inodes = ctx.fieldWanted("inodes_used_percent") || ctx.fieldWanted("inodes_free");
        Statvfs.Result s;
        try {
            s = fsStat.stat(Path.of(mount), inodes);
        } catch (IOException e) {
            return ProbeResult.of(Observation.unreadable(entity, e.getMessage()));
        }
        return ProbeResult.of(observe(entity, s));
    }

    static Observation observe(Entity entity, Statvfs.Result s) {
        long frsize = s.frsize() > 0 ? s.frsize() : s.bsize();
        long used = s.blocks() - s.bfree();
        Observation.Builder o = Observation.of(entity)
                .put("mounted", true)
                .put("used_percent", used + s.bavail() > 0 ? percent(used, used + s.bavail()) : null)
                .put("free_bytes", s.bavail() * frsize)
                .put("used_bytes", used * frsize)
                .put("size_bytes", s.blocks() * frsize);
        // A filesystem without an inode table (btrfs, many FUSE and network filesystems) reports 0 inodes.
        if (s.inodesKnown() && s.files() > 0) {
            long iused = s.files() - s.ffree();
            o.put("inodes_used_percent", percent(iused, s.files())).put("inodes_free", s.ffree());
        }
        return o.build();
    }

    /** Two decimals: enough to compare with a threshold, short enough for a message. */
    private static double percent(long part, long whole) {
        return Math.round(10000.0 * part / whole) / 100.0;
    }
}
