package dev.nhc.engine.files;

import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;

/**
 * Resolves a path the way the kernel will, one component at a time from {@code /}, looking at every
 * directory and symbolic link on the way before going through it. With the root-only rule (nhc
 * running as root), each of them must belong to root and be writable by no one else; a sticky
 * directory such as /tmp may be writable by everyone, since there only an entry's owner can
 * replace it and every entry on the path must be root's. A path that passes cannot be changed by
 * any other user between this check and its use: that is what makes it safe to then open, read or
 * execute, where checking only the file (or resolving it first and checking the result) leaves a
 * window in which a symbolic link on the way can be flipped.
 */
public final class TrustedPath {
    /** As Linux's own limit on symbolic links followed in one lookup. */
    static final int MAX_LINKS = 40;
    private static final Path ROOT = Path.of("/");

    /** Where a path leads: the real path, and what is there ({@code stat} null when nothing is). */
    public record Resolved(Path real, FileStat stat) {
        public boolean exists() {
            return stat != null;
        }
    }

    private TrustedPath() {
    }

    /**
     * Resolves {@code path} (absolute) to what is there. Throws {@link NoSuchFileException} when it
     * does not exist, {@link UntrustedPathException} under the root-only rule when a directory, link
     * or the file itself could be changed by someone other than root.
     */
    public static Resolved resolve(Path path, boolean rootOnly) throws IOException {
        Resolved r = walk(path, rootOnly, null);
        if (!r.exists()) {
            throw new NoSuchFileException(path.toString());
        }
        return r;
    }

    /**
     * As {@link #resolve}, but a path that does not exist is fine as long as (under the root-only
     * rule) only root could create it: a program given such a path may create or read it later.
     */
    public static Resolved resolveMaybeMissing(Path path, boolean rootOnly) throws IOException {
        return walk(path, rootOnly, null);
    }

    /**
     * Checks, under the root-only rule, that each of {@code paths} (absolute) leads only through
     * what root alone can change, whether or not it exists ({@link #resolveMaybeMissing}). A path
     * no program could open (a component that is a file, a loop of links) is passed over. The
     * directories the paths share are looked at once.
     */
    public static void checkAll(Collection<Path> paths) throws IOException {
        Map<Path, FileStat> seen = new HashMap<>();
        for (Path p : paths) {
            try {
                walk(p, true, seen);
            } catch (UntrustedPathException e) {
                throw e;
            } catch (FileSystemException e) {
                // nothing there that a program could open either
            }
        }
    }

    /** The root-only rule for the file at the end of a path (or an open descriptor's fstat): root's, and writable by no one else. */
    public static void checkFile(Path shownAs, FileStat st) throws UntrustedPathException {
        if (st.uid() != 0) {
            throw new UntrustedPathException(shownAs + " is owned by uid " + st.uid() + ", not root");
        }
        if (st.isDirectory()) {
            checkDirectory(shownAs, st);
        } else if (st.writableByOthers() && !st.isDevice()) {
            throw new UntrustedPathException(shownAs + " is " + st.whoElseCanWrite());
        }
    }

    private static void checkDirectory(Path dir, FileStat st) throws UntrustedPathException {
        if (st.uid() != 0) {
            throw new UntrustedPathException("directory " + dir + " is owned by uid " + st.uid() + ", not root");
        }
        if (st.writableByOthers() && !st.sticky()) {
            throw new UntrustedPathException("directory " + dir + " is " + st.whoElseCanWrite());
        }
    }

    private static FileStat lstat(Path p, Map<Path, FileStat> seen) throws IOException {
        if (seen == null) {
            return FileStat.lstat(p);
        }
        FileStat st = seen.get(p);
        if (st == null) {
            st = FileStat.lstat(p);
            seen.put(p, st);
        }
        return st;
    }

    private static Resolved walk(Path path, boolean rootOnly, Map<Path, FileStat> seen) throws IOException {
        if (!path.isAbsolute()) {
            throw new IllegalArgumentException("not an absolute path: " + path);
        }
        Deque<String> todo = new ArrayDeque<>();
        push(todo, path);
        Path dir = ROOT;
        FileStat dirStat = lstat(ROOT, seen);
        if (rootOnly) {
            checkDirectory(ROOT, dirStat);
        }
        int links = 0;
        while (!todo.isEmpty()) {
            String name = todo.pollFirst();
            if (name.isEmpty() || name.equals(".")) {
                continue;
            }
            if (name.equals("..")) {
                // dir is always a real path reached from /, so its parent was looked at on the way down.
                if (dir.getParent() != null) {
                    dir = dir.getParent();
                    dirStat = lstat(dir, seen);
                }
                continue;
            }
            Path next = dir.resolve(name);
            FileStat st;
            try {
                st = lstat(next, seen);
            } catch (NoSuchFileException e) {
                if (rootOnly && dirStat.writableByOthers()) {
                    throw new UntrustedPathException(next + " does not exist, and directory " + dir + " is "
                            + dirStat.whoElseCanWrite() + ", so another user could create it");
                }
                Path missing = next;
                for (String rest : todo) {
                    missing = missing.resolve(rest);
                }
                return new Resolved(missing.normalize(), null);
            }
            if (st.isSymlink()) {
                if (rootOnly && st.uid() != 0) {
                    throw new UntrustedPathException("symbolic link " + next + " is owned by uid " + st.uid() + ", not root");
                }
                if (++links > MAX_LINKS) {
                    throw new FileSystemException(path.toString(), null, "too many levels of symbolic links");
                }
                Path target = java.nio.file.Files.readSymbolicLink(next);
                push(todo, target);
                if (target.isAbsolute()) {
                    dir = ROOT;
                    dirStat = lstat(ROOT, seen);
                }
                continue;
            }
            if (st.isDirectory()) {
                if (rootOnly) {
                    checkDirectory(next, st);
                }
                dir = next;
                dirStat = st;
                continue;
            }
            for (String rest : todo) {
                if (!rest.isEmpty() && !rest.equals(".")) {
                    throw new NotDirectoryException(next.toString());
                }
            }
            if (rootOnly) {
                checkFile(next, st);
            }
            return new Resolved(next, st);
        }
        return new Resolved(dir, dirStat);
    }

    /** Puts the names of {@code p} in front of what is still to be walked, in order. */
    private static void push(Deque<String> todo, Path p) {
        for (int i = p.getNameCount() - 1; i >= 0; i--) {
            todo.addFirst(p.getName(i).toString());
        }
    }
}
