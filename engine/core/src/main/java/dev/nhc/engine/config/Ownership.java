package dev.nhc.engine.config;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

/** File ownership rules for things root executes or trusts (configs, scripts). */
public final class Ownership {
    private Ownership() {
    }

    public static boolean runningAsRoot() {
        try {
            // /proc/self is owned by the effective uid of the process that looks at it.
            return ((Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid")) == 0;
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return "root".equals(System.getProperty("user.name"));
        }
    }

    /** Why root should not trust this file, or null when only root can change it. */
    public static String unsafeForRoot(Path file) throws IOException {
        Path real = file.toRealPath();
        String why = unsafe(real, false);
        if (why != null) {
            return why;
        }
        Path dir = real.getParent();
        return dir == null ? null : unsafe(dir, true);
    }

    private static String unsafe(Path p, boolean isDir) throws IOException {
        int uid = (Integer) Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS);
        int mode = (Integer) Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS);
        String what = isDir ? "its directory " + p : p.toString();
        if (uid != 0) {
            return what + " is owned by uid " + uid + ", not root";
        }
        boolean sticky = (mode & 01000) != 0;
        if ((mode & 0022) != 0 && !(isDir && sticky)) {
            return what + " is writable by " + ((mode & 0002) != 0 ? "every user" : "its group") + " (mode " + Integer.toOctalString(mode & 07777) + ")";
        }
        return null;
    }
}
