package dev.nhc.engine.files;

import java.io.IOException;
import java.net.URL;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The jars of a directory that nhc may load code from (a site's probe jars, GraalJS for
 * script.js): code loaded into nhc's process runs as root, so under the root-only rule a jar, its
 * directory and everything above must be root's and writable by no one else ({@link TrustedPath}),
 * and each is given by its checked real path, so the file checked is the file loaded.
 */
public final class TrustedJars {
    /** The jars of one directory that may be loaded, and why the others may not (one line each). */
    public record Found(List<URL> jars, List<String> refused) {
    }

    private TrustedJars() {
    }

    /**
     * The {@code *.jar} files of {@code dir}, in name order, each by its real path, that may be
     * loaded: under the root-only rule, those that only root can change. A missing directory has
     * none; one others can change gives none and one line saying why.
     */
    public static Found in(Path dir, boolean rootOnly) {
        List<URL> jars = new ArrayList<>();
        List<String> refused = new ArrayList<>();
        Path real;
        try {
            TrustedPath.Resolved r = TrustedPath.resolve(dir.toAbsolutePath(), rootOnly);
            if (!r.stat().isDirectory()) {
                return new Found(jars, refused);
            }
            real = r.real();
        } catch (NoSuchFileException | java.nio.file.NotDirectoryException e) {
            return new Found(jars, refused);
        } catch (UntrustedPathException e) {
            refused.add("the jars in " + dir + ": " + e.getMessage() + "; running as root, nhc loads only code that only root can change");
            return new Found(jars, refused);
        } catch (IOException e) {
            refused.add("the jars in " + dir + ": cannot check who can change them: " + IoReason.of(e));
            return new Found(jars, refused);
        }
        List<Path> names = new ArrayList<>();
        try (DirectoryStream<Path> s = Files.newDirectoryStream(real, "*.jar")) {
            s.forEach(names::add);
        } catch (IOException e) {
            refused.add("the jars in " + dir + ": cannot list them: " + IoReason.of(e));
            return new Found(jars, refused);
        }
        names.sort(null);
        for (Path jar : names) {
            try {
                TrustedPath.Resolved r = TrustedPath.resolve(jar, rootOnly);
                if (r.stat().isRegular()) {
                    jars.add(r.real().toUri().toURL());
                }
            } catch (UntrustedPathException e) {
                refused.add(jar + ": " + e.getMessage() + "; running as root, nhc loads only code that only root can change");
            } catch (IOException | RuntimeException e) {
                refused.add(jar + ": cannot check who can change it: " + (e instanceof IOException io ? IoReason.of(io) : e.toString()));
            }
        }
        return new Found(jars, refused);
    }
}
