package dev.nhc.checks.host;

import dev.nhc.probe.ProbeContext;

import java.io.FileInputStream;
import java.io.FileNotFoundException;
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

    /**
     * A small sysfs attribute into a reused buffer, or null when it does not exist. Plain
     * FileInputStream rather than Files: on a cold JVM it costs a third as much per file, which
     * counts when a probe reads a hundred of them (see {@link CpuProbe}).
     */
    static String readSmall(String p, byte[] buf) throws IOException {
        int len = 0;
        try (FileInputStream in = new FileInputStream(p)) {
            int n;
            while (len < buf.length && (n = in.read(buf, len, buf.length - len)) > 0) {
                len += n;
            }
        } catch (FileNotFoundException e) {
            if (!Files.exists(Path.of(p))) {
                return null;
            }
            // FileInputStream says "path (Permission denied)"; keep only the reason.
            String m = String.valueOf(e.getMessage());
            int open = m.lastIndexOf(" (");
            throw new IOException(p + ": " + (open >= 0 && m.endsWith(")") ? m.substring(open + 2, m.length() - 1) : m), e);
        } catch (IOException e) {
            throw new IOException(p + ": " + reason(e), e);
        }
        return new String(buf, 0, len, StandardCharsets.US_ASCII);
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
