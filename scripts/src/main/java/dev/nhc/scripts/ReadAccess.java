package dev.nhc.scripts;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Function;

/** The read-only paths a config granted; everything else is refused with the path named. */
record ReadAccess(List<Path> allowed, Function<String, Path> resolve) {
    static final int MAX_READ = 1 << 20;

    String read(String path) {
        Path p = check(path);
        try (InputStream in = Files.newInputStream(p)) {
            byte[] b = in.readNBytes(MAX_READ);
            return new String(b, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalArgumentException("readFile: cannot read " + path + ": " + e.getMessage());
        }
    }

    List<String> list(String path) {
        Path p = check(path);
        try (var s = Files.list(p)) {
            return s.map(c -> c.getFileName().toString()).sorted().toList();
        } catch (IOException e) {
            throw new IllegalArgumentException("listDir: cannot list " + path + ": " + e.getMessage());
        }
    }

    private Path check(String path) {
        if (!path.startsWith("/")) {
            throw new IllegalArgumentException("access to " + path + " denied: paths must be absolute");
        }
        Path real;
        try {
            real = resolve.apply(path).toRealPath();
        } catch (IOException e) {
            // do not tell a script whether a path it may not read exists
            real = null;
        }
        if (real != null) {
            for (Path a : allowed) {
                if (real.startsWith(a)) {
                    return real;
                }
            }
        }
        if (real == null && allowed.stream().anyMatch(a -> resolve.apply(path).normalize().startsWith(a))) {
            throw new IllegalArgumentException("cannot read " + path + ": no such file");
        }
        throw new IllegalArgumentException("access to " + path + " denied: not below allow_read");
    }
}
