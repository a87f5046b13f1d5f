package dev.nhc.checks.dcgm;

import dev.nhc.checks.CatalogueFile;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * DCGM's error codes ({@code dcgmError_t}, the {@code error_id} in {@code dcgmi diag} and
 * {@code dcgmi health} JSON) with DCGM's severity and category for each, from the resource
 * {@code dcgm-error-codes.tsv} (transcribed from DCGM's {@code dcgm_errors.h} and
 * {@code dcgm_errors.c}; its header names the commit). nhc's {@link Kind} of a code follows from
 * DCGM's severity and category by one rule ({@link #kindOf}); the resource's mapping block states
 * it and a test holds the two together.
 *
 * <p>Findings name the code ("DCGM_FR_DBE_VIOLATION, error 103"); the kind is for {@code nhc list dcgm.diag}
 * and for parsers that want it, and never softens a failure: DCGM files
 * errors that leave a node unusable under its CONFIG severity too (a GPU count that differs
 * between /dev and NVML, a fabric manager that did not finish training), so {@code dcgm.diag}
 * still treats only persistence mode off as a configuration-only failure.
 */
public final class DcgmErrorCodes {
    /** What kind of problem a code reports, for people and for rules that choose to use it. */
    public enum Kind {
        HARDWARE, CONFIGURATION, OTHER;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** One code: its number, DCGM's name, severity, category and description. */
    public record Code(int id, String name, String severity, String category, String description) {
        public Kind kind() {
            return kindOf(severity, category);
        }
    }

    private static final List<String> COLUMNS = List.of("id", "name", "severity", "category", "description");
    private static final List<String> SEVERITIES = List.of("NONE", "MONITOR", "ISOLATE", "UNKNOWN", "TRIAGE", "CONFIG", "RESET");

    private static final class Holder {
        static final DcgmErrorCodes CODES = load();
    }

    private final CatalogueFile file;
    private final Map<Integer, Code> byId;

    private DcgmErrorCodes(CatalogueFile file, Map<Integer, Code> byId) {
        this.file = file;
        this.byId = byId;
    }

    /** The catalogue shipped with nhc, read once on first use. */
    public static DcgmErrorCodes get() {
        return Holder.CODES;
    }

    private static DcgmErrorCodes load() {
        CatalogueFile f = CatalogueFile.load(DcgmErrorCodes.class, "dcgm-error-codes.tsv", COLUMNS);
        Map<Integer, Code> byId = new LinkedHashMap<>();
        for (CatalogueFile.Row r : f.rows()) {
            int id = f.number(r, 0);
            if (!SEVERITIES.contains(r.cell(2))) {
                throw new IllegalStateException(f.name() + ":" + r.line() + ": unknown DCGM severity " + r.cell(2));
            }
            if (byId.put(id, new Code(id, r.cell(1), r.cell(2), r.cell(3), r.cell(4))) != null) {
                throw new IllegalStateException(f.name() + ":" + r.line() + ": error id " + id + " twice");
            }
        }
        return new DcgmErrorCodes(f, byId);
    }

    /**
     * nhc's kind of a DCGM error: configuration when DCGM calls it configurable (severity CONFIG) or
     * files it under software configuration; hardware when DCGM's category is a hardware one; other
     * for the rest (software, CUDA, performance, DCGM-internal).
     */
    static Kind kindOf(String severity, String category) {
        if (severity.equals("CONFIG") || category.equals("SOFTWARE_CONFIG")) {
            return Kind.CONFIGURATION;
        }
        if (category.startsWith("HARDWARE_")) {
            return Kind.HARDWARE;
        }
        return Kind.OTHER;
    }

    /** The mapping as the resource's mapping block states it, line by line. */
    static List<String> mappingText() {
        return List.of(
                "  kind           when",
                "  configuration  DCGM severity CONFIG, or category SOFTWARE_CONFIG",
                "  hardware       otherwise, a category HARDWARE_* (thermal, memory, NVLink, NVSwitch, PCIe, power, other)",
                "  other          the rest (software, CUDA, EUD, performance, DCGM-internal, none)",
                "  The kind never softens a failure (dcgm.diag treats only DCGM_FR_PERSISTENCE_MODE as",
                "  configuration-only; DCGM's CONFIG severity also covers a GPU count mismatch and an aborted test).");
    }

    public Optional<Code> code(long id) {
        return id < 0 || id > Integer.MAX_VALUE ? Optional.empty() : Optional.ofNullable(byId.get((int) id));
    }

    public Collection<Code> all() {
        return byId.values();
    }

    CatalogueFile file() {
        return file;
    }

    /** "DCGM_FR_DBE_VIOLATION, error 103" for a known id, "DCGM error 999" for one this catalogue does not know. */
    public String describe(long id) {
        return code(id).map(c -> c.name() + ", error " + c.id()).orElse("DCGM error " + id);
    }

    /** The table for {@code nhc list}: where it comes from, the mapping, one line per code. */
    public List<String> listing() {
        List<String> out = new ArrayList<>();
        out.add("DCGM error codes (" + byId.size() + "), " + file.comments().stream().filter(c -> c.startsWith("source:"))
                .findFirst().orElse("source unknown"));
        mappingText().forEach(l -> out.add("  " + l.strip()));
        out.add(String.format(Locale.ROOT, "  %-4s %-40s %-8s %-18s %-13s %s", "id", "name", "severity", "category", "kind", "description"));
        for (Code c : byId.values()) {
            out.add(String.format(Locale.ROOT, "  %-4d %-40s %-8s %-18s %-13s %s", c.id(), c.name(), c.severity(), c.category(),
                    c.kind().label(), c.description()));
        }
        return out;
    }
}
