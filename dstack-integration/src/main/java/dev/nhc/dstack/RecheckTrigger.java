package dev.nhc.dstack;

import dev.nhc.engine.config.CheckConfig;
import dev.nhc.engine.config.Config;

import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Something outside the schedule that makes checks run at once, such as NVML XID events: a fatal XID
 * must change the verdict within a second, not at the next interval. The cli adapts the GPU
 * module's event watcher to this; the daemon starts each trigger once with the config it started
 * with and closes it on shutdown.
 */
public interface RecheckTrigger extends AutoCloseable {

    /** Starts watching (on its own thread); {@code recheck} runs the checks that match now. */
    void start(Config config, Consumer<Predicate<CheckConfig>> recheck) throws Exception;

    @Override
    void close();

    /** The checks a GPU event concerns: those whose probe is a GPU probe. */
    static boolean gpuCheck(CheckConfig c) {
        return c.use() != null && c.use().startsWith("gpu");
    }
}
