package dev.nhc.checks.host;

import dev.nhc.probe.ProbeContext;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The kernel's mount table, {@code /proc/self/mounts} (falling back to {@code /proc/mounts}), read
 * under the context's system root. Only the table comes from the root; what it names are paths of
 * the node itself.
 */
final class MountTable {
    static final String SELF = "/proc/self/mounts";
    static final String ALL = "/proc/mounts";

    /** One line of the table, with the kernel's octal escapes ({@code \040} for a space) undone. */
    record Mount(String source, String point, String fstype, List<String> options) {
        boolean readOnly() {
            return options.contains("ro");
        }
    }

    private final List<Mount> mounts;

    MountTable(List<Mount> mounts) {
        this.mounts = List.copyOf(mounts);
    }

    static MountTable read(ProbeContext ctx) throws IOException {
        Path self = ctx.sys(SELF);
        byte[] data;
        try {
            data = java.nio.file.Files.readAllBytes(self);
        } catch (NoSuchFileException e) {
            Path all = ctx.sys(ALL);
            try {
                data = java.nio.file.Files.readAllBytes(all);
            } catch (NoSuchFileException e2) {
                throw new IOException("no mount table: neither " + self + " nor " + all + " exists", e2);
            } catch (IOException e2) {
                throw SysFiles.named(all, e2);
            }
        } catch (IOException e) {
            throw SysFiles.named(self, e);
        }
        return parse(data);
    }

    /** Lines the kernel would never write (fewer than four fields) are skipped rather than failing the check. */
    static MountTable parse(byte[] data) {
        // The kernel writes raw bytes (UTF-8 names as they are) and escapes only space, tab, newline
        // and backslash, so split on ASCII and decode each field after unescaping.
        String text = new String(data, StandardCharsets.ISO_8859_1);
        List<Mount> out = new ArrayList<>();
        for (String line : text.split("\n")) {
            String[] f = line.trim().split("[ \t]+");
            if (f.length < 4) {
                continue;
            }
            out.add(new Mount(unescape(f[0]), unescape(f[1]), unescape(f[2]), List.of(unescape(f[3]).split(","))));
        }
        return new MountTable(out);
    }

    /** The entry in effect for a mount point: the last one, since a later mount on the same point hides the earlier. */
    Optional<Mount> find(String point) {
        String want = normalize(point);
        for (int i = mounts.size() - 1; i >= 0; i--) {
            if (mounts.get(i).point().equals(want)) {
                return Optional.of(mounts.get(i));
            }
        }
        return Optional.empty();
    }

    List<Mount> all() {
        return mounts;
    }

    /**
     * Why a configured mount point or directory cannot be one, or null: the config-time check of the
     * probes' {@code mount} and {@code path} parameters.
     */
    static String notAbsolute(String point) {
        return point.startsWith("/") ? null : "'" + point + "' must be an absolute path such as /scratch";
    }

    /** {@code /scratch/} and {@code //scratch} name the mount point {@code /scratch}, as in the table. */
    static String normalize(String point) {
        if (point == null || !point.startsWith("/")) {
            throw new IllegalArgumentException("mount point '" + point + "' must be an absolute path such as /scratch");
        }
        String p = point.replaceAll("/{2,}", "/");
        while (p.length() > 1 && p.endsWith("/")) {
            p = p.substring(0, p.length() - 1);
        }
        return p;
    }

    static String unescape(String field) {
        if (field.indexOf('\\') < 0) {
            return new String(field.getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.UTF_8);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(field.length());
        for (int i = 0; i < field.length(); i++) {
            char c = field.charAt(i);
            if (c == '\\' && isOctal(field, i + 1)) {
                out.write(Integer.parseInt(field.substring(i + 1, i + 4), 8));
                i += 3;
            } else {
                out.write(c);
            }
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    private static boolean isOctal(String s, int from) {
        if (from + 3 > s.length()) {
            return false;
        }
        for (int i = from; i < from + 3; i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '7') {
                return false;
            }
        }
        return true;
    }
}
