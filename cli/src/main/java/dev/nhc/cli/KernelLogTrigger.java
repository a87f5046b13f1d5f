package dev.nhc.cli;

import dev.nhc.checks.kernel.KernelLogFollower;
import dev.nhc.checks.kernel.KernelLogSpec;
import dev.nhc.daemon.RecheckTrigger;
import dev.nhc.engine.plan.Plan;
import dev.nhc.engine.plan.PlannedCheck;
import dev.nhc.probe.Tags;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * New kernel log lines re-run the kernel-log checks at once (a fatal XID in the log fails
 * {@code gpu.xid} within a second), following every source those checks read.
 */
final class KernelLogTrigger implements RecheckTrigger {
    /** Set on the daemon's start or reload thread, closed by its shutdown hook. */
    private volatile KernelLogFollower follower;
    /** What the running follower follows: a reload that asks for the same keeps it (no lines missed meanwhile). */
    private List<Object> following;

    /** Called again on each reload: follows what the new plan's checks read, closing the old follower first. */
    @Override
    public synchronized void start(Plan plan, Consumer<String> recheck) {
        List<String> sources = new ArrayList<>();
        String journalctl = null;
        for (PlannedCheck c : plan.checks()) {
            if (c.spec().hasTag(Tags.KERNEL_LOG)) {
                sources.add(c.spec().param(KernelLogSpec.LOG.name()).isPresent() ? KernelLogSpec.LOG.get(c.check().with()) : "kmsg");
                if (c.spec().param(KernelLogSpec.JOURNALCTL.name()).isPresent()) {
                    journalctl = KernelLogSpec.JOURNALCTL.get(c.check().with());
                }
            }
        }
        List<Object> wanted = List.of(plan.settings().root(), List.copyOf(sources), String.valueOf(journalctl));
        if (follower != null && wanted.equals(following)) {
            return;
        }
        close();
        if (sources.isEmpty()) {
            return;
        }
        following = wanted;
        List<String> problems = new ArrayList<>();
        follower = KernelLogFollower.start(plan.settings().root(), sources, journalctl, () -> recheck.accept(Tags.KERNEL_LOG), problems);
        if (problems.size() == new java.util.LinkedHashSet<>(sources).size()) {
            close(); // nothing followed: a reload tries again
            throw new IllegalStateException(String.join("; ", problems));
        }
        // Some sources are followed: say which are not, and keep the others.
        problems.forEach(p -> System.err.println("nhc daemon: " + p + "; those checks run on their schedule only"));
    }

    @Override
    public synchronized void close() {
        KernelLogFollower f = follower;
        follower = null;
        following = null;
        if (f != null) {
            f.close();
        }
    }
}
