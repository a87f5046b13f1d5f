package dev.nhc.cli.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.core.FileAppender;
import dev.nhc.engine.config.Settings;
import org.slf4j.LoggerFactory;

/** Applies the config's log settings (level, an extra log file) once the config is known. */
public final class Logging {
    private Logging() {
    }

    public static void apply(Settings settings) {
        Object file = settings.get("log_file");
        String level = String.valueOf(settings.get("log_level"));
        // With the defaults there is nothing to change, and touching logback would initialise it,
        // which a one-shot run pays for only when it actually logs something.
        if (file == null && "warn".equalsIgnoreCase(level)) {
            return;
        }
        if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext ctx) || NhcLogbackConfigurator.overridden()) {
            return;
        }
        Logger root = ctx.getLogger(Logger.ROOT_LOGGER_NAME);
        root.setLevel(Level.toLevel(level, Level.WARN));
        if (file != null) {
            PatternLayoutEncoder enc = new PatternLayoutEncoder();
            enc.setContext(ctx);
            enc.setPattern("%d{ISO8601} nhc[%property{pid}] %-5level %msg%n");
            enc.start();
            FileAppender<ch.qos.logback.classic.spi.ILoggingEvent> fa = new FileAppender<>();
            fa.setContext(ctx);
            fa.setName("file");
            fa.setFile(file.toString());
            fa.setEncoder(enc);
            fa.start();
            root.addAppender(fa);
        }
    }
}
