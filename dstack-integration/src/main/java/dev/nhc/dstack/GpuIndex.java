package dev.nhc.dstack;

import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads a GPU index out of an entity name ("gpu3", "GPU 3", "gpu:3", or a bare "3" from a GPU probe). */
public final class GpuIndex {
    private static final Pattern NAMED = Pattern.compile("(?i)gpu[\\s:#_-]*(\\d{1,4})");
    private static final Pattern BARE = Pattern.compile("\\d{1,4}");

    private GpuIndex() {
    }

    public static OptionalInt of(String probe, String entity) {
        if (entity == null) {
            return OptionalInt.empty();
        }
        Matcher m = NAMED.matcher(entity.trim());
        if (m.matches()) {
            return OptionalInt.of(Integer.parseInt(m.group(1)));
        }
        if (probe != null && probe.startsWith("gpu") && BARE.matcher(entity.trim()).matches()) {
            return OptionalInt.of(Integer.parseInt(entity.trim()));
        }
        return OptionalInt.empty();
    }
}
