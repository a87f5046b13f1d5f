package dev.nhc.cli.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.OutputStreamAppender;
import dev.nhc.engine.config.Ownership;
import dev.nhc.engine.config.Settings;
import dev.nhc.engine.files.AppendOnlyFile;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

/**
 * Applies the config's log settings (level, an extra log file) once the config is known. The log
 * file is opened by {@link AppendOnlyFile} (never through a link; as root, only a file only root
 * can change); one that cannot be used is named in a warning and the run goes on without it.
 */
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
            FileChannel channel;
            try {
                channel = AppendOnlyFile.open(Path.of(file.toString()), Ownership.runningAsRoot());
            } catch (IOException | RuntimeException e) {
                // Losing the log file must not lose the health check: say so where slurmd and systemd look.
                root.warn("not logging to {} (settings.log_file): {}", file, e.getMessage());
                return;
            }
            PatternLayoutEncoder enc = new PatternLayoutEncoder();
            enc.setContext(ctx);
            enc.setPattern("%d{ISO8601} nhc[%property{pid}] %-5level %msg%n");
            enc.start();
            // An appender on the descriptor opened above, not logback's FileAppender, which would
            // open the path again and follow whatever link is there by then.
            OutputStreamAppender<ILoggingEvent> fa = new OutputStreamAppender<>();
            fa.setContext(ctx);
            fa.setName("file");
            fa.setEncoder(enc);
            fa.setOutputStream(Channels.newOutputStream(channel));
            fa.start();
            root.addAppender(fa);
        }
    }
}
