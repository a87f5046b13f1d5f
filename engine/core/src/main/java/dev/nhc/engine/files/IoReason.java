package dev.nhc.engine.files;

import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.NotLinkException;

/** The reason an I/O call failed, on one line and without the file name a FileSystemException repeats: the caller names the file itself. */
public final class IoReason {
    private IoReason() {
    }

    public static String of(Exception e) {
        String m;
        if (e instanceof FileSystemException fse) {
            // The JDK throws AccessDeniedException and its kin with no reason, their message being only the path.
            m = fse.getReason() != null ? fse.getReason() : byKind(fse);
        } else {
            m = e.getMessage();
        }
        return (m == null ? e.getClass().getSimpleName() : m).replace('\n', ' ');
    }

    private static String byKind(FileSystemException e) {
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        } else if (e instanceof NoSuchFileException) {
            return "no such file or directory";
        } else if (e instanceof FileAlreadyExistsException) {
            return "already exists";
        } else if (e instanceof NotDirectoryException) {
            return "not a directory";
        } else if (e instanceof DirectoryNotEmptyException) {
            return "directory not empty";
        } else if (e instanceof NotLinkException) {
            return "not a symbolic link";
        }
        return e.getMessage();
    }
}
