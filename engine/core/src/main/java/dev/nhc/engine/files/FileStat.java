package dev.nhc.engine.files;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Map;

/** What the ownership rules look at in one file: its type and mode bits, owner, identity, size and link count (stat(2) through the "unix" view). */
public record FileStat(int mode, int uid, long dev, long ino, long size, int nlink) {
    private static final int TYPE = 0170000;

    /** lstat: a symbolic link is described itself, not what it points to. */
    public static FileStat lstat(Path p) throws IOException {
        return of(p, LinkOption.NOFOLLOW_LINKS);
    }

    /** stat: through symbolic links (and through /proc/self/fd/N to the open file). */
    public static FileStat stat(Path p) throws IOException {
        return of(p);
    }

    private static FileStat of(Path p, LinkOption... options) throws IOException {
        Map<String, Object> a = Files.readAttributes(p, "unix:mode,uid,dev,ino,size,nlink", options);
        return new FileStat((Integer) a.get("mode"), (Integer) a.get("uid"), (Long) a.get("dev"), (Long) a.get("ino"), (Long) a.get("size"),
                (Integer) a.get("nlink"));
    }

    public boolean isRegular() {
        return (mode & TYPE) == 0100000;
    }

    public boolean isDirectory() {
        return (mode & TYPE) == 0040000;
    }

    public boolean isSymlink() {
        return (mode & TYPE) == 0120000;
    }

    public boolean isDevice() {
        return (mode & TYPE) == 0020000 || (mode & TYPE) == 0060000;
    }

    /** Writable by its group or by everyone: someone besides its owner can change it. */
    public boolean writableByOthers() {
        return (mode & 0022) != 0;
    }

    public boolean sticky() {
        return (mode & 01000) != 0;
    }

    public boolean executable() {
        return (mode & 0111) != 0;
    }

    public boolean sameFile(FileStat other) {
        return dev == other.dev && ino == other.ino;
    }

    /** "a directory", "a FIFO", ... for messages about a file that is not what was expected. */
    public String kind() {
        return switch (mode & TYPE) {
            case 0100000 -> "a regular file";
            case 0040000 -> "a directory";
            case 0120000 -> "a symbolic link";
            case 0020000 -> "a character device";
            case 0060000 -> "a block device";
            case 0010000 -> "a FIFO";
            case 0140000 -> "a socket";
            default -> "a file of unknown type";
        };
    }

    /** "writable by every user (mode 777)" or "writable by its group (mode 775)". */
    public String whoElseCanWrite() {
        return "writable by " + ((mode & 0002) != 0 ? "every user" : "its group") + " (mode " + Integer.toOctalString(mode & 07777) + ")";
    }
}
