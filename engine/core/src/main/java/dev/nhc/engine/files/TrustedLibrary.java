package dev.nhc.engine.files;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The one way nhc finds a native library it is about to load (NVML today; the AMD SMI and DCGM
 * bindings call it too). Loading a library runs its constructors in nhc's process before any of
 * its functions is called, so as root only a library that root alone can change is loaded: the
 * file, and every directory and link from / down to it, root's and writable by no one else
 * ({@link TrustedPath}).
 *
 * <p>A path (with a slash) is that file. A bare name is looked for where the dynamic linker
 * looks: LD_LIBRARY_PATH (the caller's environment), the directories /etc/ld.so.conf lists (with
 * its includes: what ldconfig puts in the cache), then the system directories. The first
 * candidate that exists and passes is the one; a candidate others could have put there is passed
 * over, and named in the refusal when none passes, so that another user who can write one of
 * those directories can neither have root load their file nor hide the real library. Whatever is
 * returned is loaded by its real absolute path: the file checked is the file loaded.
 *
 * <p>The libraries the loaded one needs in turn (libc, libpthread, libdl) the dynamic linker
 * finds in the ld.so cache, whose directories are the system's; they are not looked at here.
 */
public final class TrustedLibrary {
    private static final Path LD_SO_CONF = Path.of("/etc/ld.so.conf");
    private static final int MAX_INCLUDE_DEPTH = 4;

    private TrustedLibrary() {
    }

    /**
     * The real path of the library to load. Throws {@link NoSuchFileException} (its reason says
     * where it was looked for) or, under the root-only rule, {@link UntrustedPathException} naming
     * the file and why.
     */
    public static Path locate(String library, boolean rootOnly) throws IOException {
        if (library.contains("/")) {
            Path p = Path.of(library).toAbsolutePath();
            TrustedPath.Resolved r;
            try {
                r = TrustedPath.resolve(p, rootOnly);
            } catch (NoSuchFileException e) {
                throw new NoSuchFileException(p.toString(), null, "No such file or directory");
            }
            if (!r.stat().isRegular()) {
                throw new NoSuchFileException(p.toString(), null, "is " + r.stat().kind() + ", not a library");
            }
            return r.real();
        }
        return search(library, searchPath(), rootOnly);
    }

    /** Where a bare library name is looked for, in order: LD_LIBRARY_PATH, /etc/ld.so.conf's directories, the system directories. */
    public static List<Path> searchPath() {
        List<Path> dirs = new ArrayList<>();
        String env = System.getenv("LD_LIBRARY_PATH");
        if (env != null) {
            for (String d : env.split("[:;]")) {
                add(dirs, d);
            }
        }
        readConf(LD_SO_CONF, dirs, 0);
        String multiarch = multiarch();
        for (String d : List.of("/lib/" + multiarch, "/usr/lib/" + multiarch, "/lib64", "/usr/lib64", "/lib", "/usr/lib")) {
            add(dirs, d);
        }
        return dirs;
    }

    static Path search(String name, List<Path> dirs, boolean rootOnly) throws IOException {
        List<String> passedOver = new ArrayList<>();
        for (Path dir : dirs) {
            Path candidate = dir.resolve(name);
            if (!Files.isRegularFile(candidate)) {
                continue;
            }
            try {
                TrustedPath.Resolved r = TrustedPath.resolve(candidate, rootOnly);
                if (r.stat().isRegular()) {
                    return r.real();
                }
            } catch (UntrustedPathException e) {
                passedOver.add(e.getMessage());
            } catch (IOException e) {
                // gone meanwhile, or cannot be examined: not one to load
            }
        }
        if (!passedOver.isEmpty()) {
            throw new UntrustedPathException(name + " was found only where other users can change it: " + String.join("; ", passedOver));
        }
        List<String> shown = dirs.stream().map(Path::toString).toList();
        throw new NoSuchFileException(name, null, "not found in " + String.join(", ", shown));
    }

    private static void add(List<Path> dirs, String d) {
        String t = d.strip();
        if (t.startsWith("/")) {
            Path p = Path.of(t).normalize();
            if (!dirs.contains(p)) {
                dirs.add(p);
            }
        }
    }

    /** The directories of an ld.so.conf-style file, following its {@code include} lines (globs, relative to the file's directory). */
    private static void readConf(Path conf, List<Path> dirs, int depth) {
        List<String> lines;
        try {
            lines = Files.readAllLines(conf, StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException e) {
            return; // no ld.so.conf (a container, another libc): the system directories remain
        }
        for (String raw : lines) {
            int hash = raw.indexOf('#');
            String line = (hash >= 0 ? raw.substring(0, hash) : raw).strip();
            if (line.startsWith("include") && line.length() > 7 && Character.isWhitespace(line.charAt(7))) {
                if (depth < MAX_INCLUDE_DEPTH) {
                    for (String pattern : line.substring(8).strip().split("\\s+")) {
                        for (Path inc : glob(conf.getParent().resolve(pattern))) {
                            readConf(inc, dirs, depth + 1);
                        }
                    }
                }
            } else if (!line.isEmpty() && !line.startsWith("hwcap")) {
                for (String d : line.split("[:,\\s]+")) {
                    add(dirs, d.contains("=") ? d.substring(0, d.indexOf('=')) : d);
                }
            }
        }
    }

    private static List<Path> glob(Path pattern) {
        List<Path> out = new ArrayList<>();
        Path dir = pattern.getParent();
        if (dir == null) {
            return out;
        }
        try (DirectoryStream<Path> s = Files.newDirectoryStream(dir, pattern.getFileName().toString())) {
            s.forEach(out::add);
        } catch (IOException | RuntimeException e) {
            return out;
        }
        out.sort(null); // as glob(3) gives them
        return out;
    }

    private static String multiarch() {
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        return switch (arch) {
            case "aarch64", "arm64" -> "aarch64-linux-gnu";
            case "ppc64le" -> "powerpc64le-linux-gnu";
            default -> "x86_64-linux-gnu";
        };
    }
}
