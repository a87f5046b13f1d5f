package dev.nhc.slurm.repair;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Pattern;

/**
 * The kernel's id of this boot ({@code /proc/sys/kernel/random/boot_id} under the system root the
 * probes use): a new one is how nhc knows that the reboot it asked for happened.
 */
public final class BootId {
    /** A UUID as the kernel writes it; anything else is not a boot id nhc can compare. */
    static final Pattern VALID = Pattern.compile("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");
    private static final int MAX = 128;

    private BootId() {
    }

    /** This boot's id, or null when it cannot be read or is not one (nhc then never asks for a reboot: it could not see it). */
    public static String read(Path root) {
        Path file = root.resolve("proc/sys/kernel/random/boot_id");
        try (InputStream in = Files.newInputStream(file)) {
            String text = new String(in.readNBytes(MAX), StandardCharsets.US_ASCII).strip();
            return valid(text) ? text : null;
        } catch (IOException | SecurityException e) {
            return null;
        }
    }

    static boolean valid(Object text) {
        return text instanceof String s && VALID.matcher(s).matches();
    }
}
