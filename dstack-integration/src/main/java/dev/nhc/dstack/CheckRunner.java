package dev.nhc.dstack;

import dev.nhc.engine.config.CheckConfig;
import dev.nhc.engine.config.Config;
import dev.nhc.model.CheckResult;
import dev.nhc.engine.state.StateStore;

/**
 * Runs one configured check to its result. The cli adapts the engine's Runner to this (one check, its
 * timeout, the daemon's state store); the daemon adds its own guard in case an implementation does
 * not return on time.
 */
@FunctionalInterface
public interface CheckRunner {
    CheckResult run(Config config, CheckConfig check, StateStore state) throws Exception;
}
