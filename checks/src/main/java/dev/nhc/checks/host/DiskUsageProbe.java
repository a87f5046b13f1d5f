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
import java.util.Optional;

/**
 * {@code disk.usage}: space and inodes of one mounted filesystem, computed like df(1).
 *
 * <p>The mount point must be in the mount table, otherwise statvfs would silently measure the
 * filesystem underneath (an unmounted /scratch is a directory on /). Both the table and the
 * filesystem are read under the system root ({@code settings.root}), so that a root laid out for a
 * test or a container is measured as a whole: its mount table names the mount points in it.
 *
 * <p>Besides nhc's own percentages (two decimals), it observes the whole percentages df prints
 * ({@code df_use_percent}, {@code df_inodes_use_percent}: GNU df rounds up), and whether df -l
 * counts the filesystem as remote: LBNL NHC's checks compare exactly those, and nhc imports them
 * with the same meaning.
 */
public final class DiskUsageProbe implements Probe {
    /** Statvfs in production; tests pass a full or inode-less filesystem through the whole probe with it. */
    interface FsStat {
        /** {@code inodes}: whether inode counts are needed (they cost a native call through JNA). */
        Statvfs.Result stat(Path path, boolean inodes) throws IOException;
    }

    static final ParamSpec<String> MOUNT = ParamSpec.text("mount", "mount point to measure, e.g. / or /scratch (must be in /proc/self/mounts)")
            .required().check(MountTable::notAbsolute);

    static final ParamSpec<String> IF_UNMOUNTED = ParamSpec.choice("if_unmounted",
                    "what a mount point that is not in the mount table means: fail, or pass (nothing to measure, as LBNL NHC's "
                            + "check_fs_* functions have it for a filesystem df does not list)", "fail", "pass")
            .defaultValue("fail");

    private static final String NOT_MOUNTED = "{entity} is not mounted";

    private static final ProbeSpec SPEC = ProbeSpec.builder("disk.usage",
                    "Space and inodes of a mounted filesystem, as df and df -i compute them: used_percent is "
                            + "used / (used + available to users), so the blocks reserved for root count as full. "
                            + "Fails when the mount point is not mounted. A filesystem whose server does not answer "
                            + "(dead NFS) makes the check time out as UNKNOWN; disk.writable fails on that.")
            .tags(Tags.HOST, Tags.STORAGE)
            .entities(Entity.Kind.MOUNT, "the mount point given by 'mount'")
            .param(MOUNT)
            .param(IF_UNMOUNTED)
            .field("mounted", Unit.BOOLEAN, "whether the mount point is in the mount table (when not, no other field is reported)")
            .field("used_percent", Unit.PERCENT, "space used, as df's Use% (reserved blocks excluded from the total)")
            .field("free_bytes", Unit.BYTES, "space available to unprivileged users (df's Avail)")
            .field("used_bytes", Unit.BYTES, "space in use (size minus all free blocks)")
            .field("size_bytes", Unit.BYTES, "size of the filesystem")
            .field("df_use_percent", Unit.PERCENT, "Use% as df prints it: the same ratio rounded up to a whole percent")
            .field("remote", Unit.BOOLEAN, "whether df -l leaves it out as a remote filesystem (a source with ':', a //server share, "
                    + "or a network or cluster filesystem type such as afs, gpfs, ocfs2)")
            .field("inodes_used_percent", Unit.PERCENT, "inodes used, as df -i's IUse% (absent where the filesystem has no fixed inode count, "
                    + "e.g. btrfs; read only when the check's rules or messages use an inode field)")
            .field("inodes_free", Unit.COUNT, "free inodes (absent where the filesystem has no fixed inode count; read only when the check's "
                    + "rules or messages use an inode field)")
            .field("inodes_used", Unit.COUNT, "inodes in use (absent where the filesystem has no fixed inode count; read like inodes_free)")
            .field("df_inodes_use_percent", Unit.PERCENT, "IUse% as df -i prints it: inodes_used_percent rounded up to a whole percent "
                    + "(absent like inodes_free)")
            // Measured fields come with the size; an unmounted mount point (if_unmounted: pass) has none of them.
            .reportedWith("size_bytes", "used_percent", "free_bytes", "used_bytes", "df_use_percent", "remote")
            .optional("size_bytes", "inodes_used_percent", "inodes_free", "inodes_used", "df_inodes_use_percent")
            // 90 % leaves an admin time to act; at 98 % a single job's output or checkpoint can hit
            // ENOSPC (and ext4's root reserve no longer helps users: df's figure already excludes it).
            .rule(DefaultRule.fail(Map.of("used_percent", "> 98"), "{entity} is {used_percent} full ({free_bytes} free)"))
            .rule(DefaultRule.fail(Map.of("inodes_used_percent", "> 98"), "{entity} has used {inodes_used_percent} of its inodes ({inodes_free} left)"))
            .rule(DefaultRule.fail(Map.of("mounted", false), NOT_MOUNTED).when("if_unmounted", "fail"))
            .rule(DefaultRule.warn(Map.of("used_percent", "> 90"), "{entity} is {used_percent} full ({free_bytes} free)"))
            .rule(DefaultRule.warn(Map.of("inodes_used_percent", "> 90"), "{entity} has used {inodes_used_percent} of its inodes ({inodes_free} left)"))
            // A check whose own fail: replaces the rule above still must not pass a filesystem it could not measure.
            .rule(DefaultRule.unknown(Map.of("mounted", false), NOT_MOUNTED).when("if_unmounted", "fail"))
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
        Optional<MountTable.Mount> entry = MountTable.read(ctx).find(mount);
        if (entry.isEmpty()) {
            return ProbeResult.of(Observation.of(entity).put("mounted", false).build());
        }
        boolean inodes = ctx.fieldWanted("inodes_used_percent") || ctx.fieldWanted("inodes_free")
                || ctx.fieldWanted("inodes_used") || ctx.fieldWanted("df_inodes_use_percent");
        Statvfs.Result s;
        try {
            s = fsStat.stat(ctx.sys(mount), inodes);
        } catch (IOException e) {
            return ProbeResult.of(Observation.unreadable(entity, e.getMessage()));
        }
        return ProbeResult.of(observe(entity, s, RemoteFilesystems.isRemote(entry.get().source(), entry.get().fstype())));
    }

    static Observation observe(Entity entity, Statvfs.Result s, boolean remote) {
        long frsize = s.frsize() > 0 ? s.frsize() : s.bsize();
        long used = s.blocks() - s.bfree();
        Observation.Builder o = Observation.of(entity)
                .put("mounted", true)
                .put("remote", remote)
                .put("used_percent", used + s.bavail() > 0 ? percent(used, used + s.bavail()) : null)
                .put("df_use_percent", used + s.bavail() > 0 ? dfPercent(used, used + s.bavail()) : null)
                .put("free_bytes", s.bavail() * frsize)
                .put("used_bytes", used * frsize)
                .put("size_bytes", s.blocks() * frsize);
        // A filesystem without an inode table (btrfs, many FUSE and network filesystems) reports 0 inodes.
        if (s.inodesKnown() && s.files() > 0) {
            long iused = s.files() - s.ffree();
            o.put("inodes_used_percent", percent(iused, s.files())).put("inodes_free", s.ffree()).put("inodes_used", iused)
                    .put("df_inodes_use_percent", dfPercent(iused, s.files()));
        }
        return o.build();
    }

    /** GNU df's Use%: the ratio in whole percent, rounded up (df.c: u100 / total + (u100 % total != 0)). */
    static long dfPercent(long part, long whole) {
        if (part < 0 || part > Long.MAX_VALUE / 100) {
            return (long) Math.ceil(100.0 * part / whole);
        }
        long p100 = part * 100;
        return p100 / whole + (p100 % whole != 0 ? 1 : 0);
    }

    /** Two decimals: enough to compare with a threshold, short enough for a message. */
    private static double percent(long part, long whole) {
        return Math.round(10000.0 * part / whole) / 100.0;
    }
}
