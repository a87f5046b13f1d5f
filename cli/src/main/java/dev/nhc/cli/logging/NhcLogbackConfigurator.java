package dev.nhc.cli.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.spi.ContextAwareBase;

import dev.nhc.engine.config.Ownership;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Logging configured in code: parsing logback.xml costs a cold JVM ~300 ms, which a health check
 * run every few minutes on every node should not pay. An admin's own config still wins: with
 * {@code -Dlogback.configurationFile=…} or a file at {@code /etc/nhc/logback.xml}, logback's usual
 * XML configuration runs instead. Logs go to stderr: slurmd captures stdout into its own log as the
 * check's output, which must stay the report.
 */
public final class NhcLogbackConfigurator extends ContextAwareBase implements Configurator {
    static final Path SITE_CONFIG = Path.of("/etc/nhc/logback.xml");

    static boolean overridden() {
        return System.getProperty("logback.configurationFile") != null;
    }

    /** A logback.xml can name classes to load: as root, only one that only root can change is used. */
    private static boolean trusted(Path file) {
        String why;
        try {
            why = Ownership.runningAsRoot() ? Ownership.unsafeForRoot(file) : null;
        } catch (IOException e) {
            why = "cannot check who can change it: " + e.getMessage();
        }
        if (why != null) {
            System.err.println("nhc: ignoring " + file + ": " + why + "; running as root, nhc only reads files that only root can change");
        }
        return why == null;
    }

    @Override
    public ExecutionStatus configure(LoggerContext ctx) {
        if (!overridden() && Files.isRegularFile(SITE_CONFIG) && trusted(SITE_CONFIG)) {
            System.setProperty("logback.configurationFile", SITE_CONFIG.toString());
        }
        if (overridden()) {
            return ExecutionStatus.INVOKE_NEXT_IF_ANY;
        }
        ctx.putProperty("pid", Long.toString(ProcessHandle.current().pid()));
        PatternLayoutEncoder enc = new PatternLayoutEncoder();
        enc.setContext(ctx);
        enc.setPattern("nhc: %level: %msg%n");
        enc.start();
        ConsoleAppender<ILoggingEvent> console = new ConsoleAppender<>();
        console.setContext(ctx);
        console.setName("stderr");
        console.setTarget("System.err");
        console.setEncoder(enc);
        console.start();
        ch.qos.logback.classic.Logger root = ctx.getLogger(ch.qos.logback.classic.Logger.ROOT_LOGGER_NAME);
        root.setLevel(Level.WARN);
        root.addAppender(console);
        return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
    }
}
