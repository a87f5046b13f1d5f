package dev.nhc.checks.gpu.xid;

import dev.nhc.checks.CatalogueFile;
import dev.nhc.model.Remedy;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * NVIDIA's NVSwitch SXid errors from the resource {@code sxid-catalogue.tsv} (the Fabric Manager
 * User Guide's appendix; the header names the version and the transcription), used for SXid lines
 * in the kernel log (gpu.xid) and in the fabric manager log (gpu.fabric). The guide's section is
 * the class; {@link #judge} maps it, and the line's own "Fatal" wins when it is stricter.
 */
public final class SxidCatalogue {
    private static final List<String> COLUMNS = List.of("sxid", "name", "class", "recovery", "source");

    /** The guide's sections. */
    public enum Kind {
        NON_FATAL, NOTABLE, FATAL, ALWAYS_FATAL;

        String label() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }

        static Kind parse(String s) {
            for (Kind k : values()) {
                if (k.label().equals(s)) {
                    return k;
                }
            }
            throw new IllegalArgumentException("SXid class '" + s + "' is not one of non-fatal, notable, fatal, always-fatal");
        }
    }

    /** One SXid: number, the guide's name, class and recovery. */
    public record Entry(int sxid, String name, Kind kind, String recovery) {
    }

    private static final class Holder {
        static final SxidCatalogue CATALOGUE = load();
    }

    private final CatalogueFile file;
    private final Map<Integer, Entry> entries;

    private SxidCatalogue(CatalogueFile file, Map<Integer, Entry> entries) {
        this.file = file;
        this.entries = entries;
    }

    public static SxidCatalogue get() {
        return Holder.CATALOGUE;
    }

    private static SxidCatalogue load() {
        CatalogueFile f = CatalogueFile.load(SxidCatalogue.class, "sxid-catalogue.tsv", COLUMNS);
        Map<Integer, Entry> entries = new LinkedHashMap<>();
        for (CatalogueFile.Row r : f.rows()) {
            int sxid = f.number(r, 0);
            Kind kind;
            try {
                kind = Kind.parse(r.cell(2));
            } catch (IllegalArgumentException e) {
                throw new IllegalStateException(f.name() + ":" + r.line() + ": " + e.getMessage(), e);
            }
            if (entries.put(sxid, new Entry(sxid, r.cell(1), kind, r.cell(3))) != null) {
                throw new IllegalStateException(f.name() + ":" + r.line() + ": SXid " + sxid + " twice");
            }
        }
        return new SxidCatalogue(f, entries);
    }

    public Optional<Entry> entry(int sxid) {
        return Optional.ofNullable(entries.get(sxid));
    }

    /**
     * Whether an SXid is fatal: the guide's fatal and always-fatal classes are; the line's own
     * "Fatal" makes any SXid fatal (the driver knows this instance); an SXid the guide does not list
     * is what its line says.
     */
    public boolean fatal(int sxid, Boolean lineSaysFatal) {
        Optional<Entry> e = entry(sxid);
        boolean byGuide = e.isPresent() && (e.get().kind() == Kind.FATAL || e.get().kind() == Kind.ALWAYS_FATAL);
        return byGuide || Boolean.TRUE.equals(lineSaysFatal);
    }

    /** Always-fatal SXids need the whole fabric reset (the host rebooted); others the GPUs and NVSwitches of the partition reset. */
    public Remedy remedy(int sxid) {
        return entry(sxid).filter(e -> e.kind() == Kind.ALWAYS_FATAL).isPresent() ? Remedy.REBOOT : Remedy.RESET_GPU;
    }

    /** "SXid 12028 (egress nonposted PRIV error)" when the guide lists it, else "SXid 12028". */
    public String name(int sxid) {
        return "SXid " + sxid + entry(sxid).map(e -> " (" + e.name() + ")").orElse("");
    }

    CatalogueFile file() {
        return file;
    }

    static List<String> mappingText() {
        return List.of(
                "  class         impact                                  remedy",
                "  non-fatal     warning, fatal when its line says Fatal  reset-gpu",
                "  notable       warning, fatal when its line says Fatal  reset-gpu",
                "  fatal         fatal                                   reset-gpu",
                "  always-fatal  fatal                                   reboot",
                "  An SXid the guide does not list is what its line says (Fatal / Non-fatal).");
    }

    List<String> listing() {
        List<String> out = new ArrayList<>();
        out.add("SXid catalogue (" + entries.size() + " SXids):");
        file.comments().stream().filter(c -> !c.startsWith("columns:") && !c.startsWith("regenerate:") && !c.startsWith("words;"))
                .forEach(c -> out.add("  " + c));
        out.add("  mapping:");
        mappingText().forEach(l -> out.add("  " + l));
        out.add(String.format(Locale.ROOT, "  %-6s %-13s %-9s %-40s %s", "SXid", "class", "remedy", "name", "recovery"));
        for (Entry e : entries.values()) {
            out.add(String.format(Locale.ROOT, "  %-6d %-13s %-9s %-40s %s", e.sxid(), e.kind().label(), remedy(e.sxid()).label(),
                    e.name(), e.recovery()));
        }
        return out;
    }
}
