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
    private KernelLogFollower follower;

    @Override
    public void start(Plan plan, Consumer<String> recheck) {
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
        if (sources.isEmpty()) {
            return;
        }
        List<String> problems = new ArrayList<>();
        follower = KernelLogFollower.start(plan.settings().root(), sources, journalctl, () -> recheck.accept(Tags.KERNEL_LOG), problems);
        if (problems.size() == new java.util.LinkedHashSet<>(sources).size()) {
            throw new IllegalStateException(String.join("; ", problems));
        }
        // Some sources are followed: say which are not, and keep the others.
        problems.forEach(p -> System.err.println("nhc daemon: " + p + "; those checks run on their schedule only"));
    }

    @Override
    public void close() {
        if (follower != null) {
            follower.close();
        }
    }
}
