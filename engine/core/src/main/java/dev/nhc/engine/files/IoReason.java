package dev.nhc.engine.files;

import java.nio.file.FileSystemException;

/** The reason an I/O call failed, on one line and without the file name a FileSystemException repeats: the caller names the file itself. */
public final class IoReason {
    private IoReason() {
    }

    public static String of(Exception e) {
        String m = e instanceof FileSystemException fse && fse.getReason() != null ? fse.getReason() : e.getMessage();
        return (m == null ? e.getClass().getSimpleName() : m).replace('\n', ' ');
    }
}
