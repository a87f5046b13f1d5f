package dev.nhc.checks.host;

import dev.nhc.engine.probe.ProbeContext;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;

/**
 * Reads the small text files of /proc and /sys under the context's system root. Failures become an
 * {@link IOException} whose message is "path: reason" (like coreutils), because the runner shows
 * that message as the reason a check is UNKNOWN.
 */
final class SysFiles {
    private SysFiles() {
    }

    static String read(ProbeContext ctx, String absolutePath) throws IOException {
        return new String(readBytes(ctx.sys(absolutePath)), StandardCharsets.UTF_8);
    }

    /** Null when the file does not exist (optional sysfs attributes), otherwise its text. */
    static String readIfExists(Path p) throws IOException {
        try {
            return new String(Files.readAllBytes(p), StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            return null;
        } catch (IOException e) {
            throw named(p, e);
        }
    }

    static byte[] readBytes(Path p) throws IOException {
        try {
            return Files.readAllBytes(p);
        } catch (IOException e) {
            throw named(p, e);
        }
    }

    static IOException named(Path p, IOException e) {
        return new IOException(p + ": " + reason(e), e);
    }

    /** The system's wording for a failed file operation ("Read-only file system", "Permission denied"). */
    static String reason(IOException e) {
        if (e instanceof FileSystemException fse && fse.getReason() != null) {
            return fse.getReason();
        }
        if (e instanceof NoSuchFileException) {
            return "No such file or directory";
        }
        if (e instanceof AccessDeniedException) {
            return "Permission denied";
        }
        if (e instanceof NotDirectoryException) {
            return "Not a directory";
        }
        if (e instanceof FileSystemException) {
            return e.getClass().getSimpleName().replace("Exception", "");
        }
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }
}
