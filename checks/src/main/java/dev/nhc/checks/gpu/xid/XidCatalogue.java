package dev.nhc.checks.gpu.xid;

import dev.nhc.checks.CatalogueFile;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * NVIDIA's XID catalogue as shipped in the resource {@code xid-catalogue.tsv} (every XID the
 * catalogue lists, its mnemonic, description, NVIDIA's immediate and investigatory actions, and
 * DCGM's health rule for it; the header names the sources and their versions), each entry judged
 * by {@link XidMapping}. Read once, the first time gpu.xid needs it.
 */
final class XidCatalogue {
    private static final List<String> COLUMNS = List.of("xid", "mnemonic", "description", "resolution", "investigatory", "dcgm");

    /** One XID as the catalogue lists it, with nhc's judgement. */
    record Entry(int xid, String mnemonic, String description, String resolution, String investigatory, XidMapping.DcgmRule dcgm,
                 XidMapping.Judgement judgement) {
    }

    private static final class Holder {
        static final XidCatalogue CATALOGUE = load();
    }

    private final CatalogueFile file;
    private final Map<Integer, Entry> entries;

    private XidCatalogue(CatalogueFile file, Map<Integer, Entry> entries) {
        this.file = file;
        this.entries = entries;
    }

    static XidCatalogue get() {
        return Holder.CATALOGUE;
    }

    private static XidCatalogue load() {
        CatalogueFile f = CatalogueFile.load(XidCatalogue.class, "xid-catalogue.tsv", COLUMNS);
        Map<Integer, Entry> entries = new LinkedHashMap<>();
        for (CatalogueFile.Row r : f.rows()) {
            int xid = f.number(r, 0);
            XidMapping.DcgmRule dcgm;
            XidMapping.Judgement judgement;
            try {
                dcgm = XidMapping.DcgmRule.parse(r.cell(5));
                judgement = XidMapping.judge(r.cell(3), dcgm);
            } catch (IllegalArgumentException e) {
                throw new IllegalStateException(f.name() + ":" + r.line() + ": " + e.getMessage(), e);
            }
            if (entries.put(xid, new Entry(xid, r.cell(1), r.cell(2), r.cell(3), r.cell(4), dcgm, judgement)) != null) {
                throw new IllegalStateException(f.name() + ":" + r.line() + ": XID " + xid + " twice");
            }
        }
        return new XidCatalogue(f, entries);
    }

    Optional<Entry> entry(int xid) {
        return Optional.ofNullable(entries.get(xid));
    }

    Collection<Entry> all() {
        return entries.values();
    }

    CatalogueFile file() {
        return file;
    }

    /** The table {@code nhc list gpu.xid} prints: the sources, the mapping, one line per XID. */
    List<String> listing() {
        List<String> out = new ArrayList<>();
        out.add("XID catalogue (" + entries.size() + " XIDs):");
        file.comments().stream().filter(c -> !c.startsWith("columns:") && !c.startsWith("regenerate:") && !c.startsWith("and architecture")
                && !c.startsWith("investigatory (")).forEach(c -> out.add("  " + c));
        out.add("  mapping:");
        XidMapping.mappingText().forEach(l -> out.add("  " + l));
        out.add(String.format(Locale.ROOT, "  %-4s %-12s %-12s %-6s %-21s %-15s %s", "XID", "impact", "remedy", "slurm", "resolution", "DCGM",
                "description"));
        for (Entry e : entries.values()) {
            XidMapping.Judgement j = e.judgement();
            out.add(String.format(Locale.ROOT, "  %-4d %-12s %-12s %-6s %-21s %-15s %s", e.xid(),
                    j.impact().label() + (j.application() && j.impact() != XidMapping.Impact.APPLICATION ? "+app" : ""),
                    j.remedy().label(), j.slurm(), e.resolution(), e.dcgm(),
                    e.description().equals("Unused") ? "Unused on Ampere and newer (" + e.mnemonic() + ")" : e.description()));
        }
        out.add("  +app: a warning that is also counted per job like an application XID");
        return out;
    }
}
