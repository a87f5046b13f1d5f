package dev.nhc.cli;

import dev.nhc.checks.gpu.nvml.XidEventWatcher;
import dev.nhc.dstack.RecheckTrigger;
import dev.nhc.engine.config.CheckConfig;
import dev.nhc.engine.config.Config;

import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * The daemon's NVML XID events: a critical XID on any GPU re-runs the GPU checks at once. Started only
 * when the config has GPU checks, so a host without them never loads NVML.
 */
final class NvmlXidTrigger implements RecheckTrigger {
    private XidEventWatcher watcher;

    @Override
    public void start(Config config, Consumer<Predicate<CheckConfig>> recheck) {
        if (config.checks().stream().noneMatch(RecheckTrigger::gpuCheck)) {
            return;
        }
        Object library = config.settings().get("nvml_library");
        watcher = XidEventWatcher.start(library == null ? null : library.toString(),
                (gpu, xid) -> recheck.accept(RecheckTrigger::gpuCheck));
    }

    @Override
    public void close() {
        if (watcher != null) {
            watcher.close();
        }
    }
}
