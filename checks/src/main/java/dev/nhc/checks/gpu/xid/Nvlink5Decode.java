package dev.nhc.checks.gpu.xid;

import dev.nhc.checks.CatalogueFile;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * NVIDIA's decode table for the NVLink5 XIDs 144-150 (the XID catalogue's sheet "XID 144-150
 * Decode"), shipped as the resource {@code nvlink5-decode.tsv} with its source in the header: per
 * unit, bit pattern of the line's first register and error status, NVIDIA's resolution and
 * severity. The catalogue's one resolution for 144-150 (WORKFLOW_NVLINK5_ERR) says "decode the
 * line"; this is the decode, and {@link #mappingText()} is how nhc judges a decoded line:
 * <ul>
 *   <li>a line the driver calls Fatal stays fatal, whatever the row says (the link or unit is down
 *       until the GPU is reset);</li>
 *   <li>a row whose resolution is RESET_GPU is fatal even on a line that says Nonfatal: NVIDIA's
 *       immediate action is a reset;</li>
 *   <li>a Nonfatal line whose row says IGNORE, with severity Non-fatal and no second action, is
 *       ignored: NVIDIA says no action, and what may follow (an XID 48, 94, 95, or 154 asking for
 *       a reset) is judged on its own line;</li>
 *   <li>every other decoded line, and a line the table has no row for (another unit, status or
 *       driver), warns as before: a row marked Non-fatal* with a second action RESET_GPU, one whose
 *       resolution is XID_154_EVAL (the driver says with XID 154 whether it wants a reset), one whose
 *       severity is fatal on a Nonfatal line.</li>
 * </ul>
 * Read once, the first time gpu.xid sees an NVLink5 line.
 */
final class Nvlink5Decode {
    private static final List<String> COLUMNS = List.of("xid", "unit", "intrinfo_v1", "intrinfo_v2", "error_status", "resolution",
            "investigatory", "severity", "action2", "hw_sw", "effect");
    static final int FIRST = 144;
    static final int LAST = 150;

    /** How a decoded line bears on the GPU. */
    enum Decision { FATAL, WARNING, IGNORE }

    /** One row of NVIDIA's table. */
    record Row(int xid, String unit, String intrinfoV1, String intrinfoV2, long errorStatus, String resolution, String investigatory,
               String severity, String action2) {

        boolean matches(int xid, Nvlink5Line line) {
            return this.xid == xid && line.status() != null && errorStatus == line.status() && unitIs(line.unit())
                    && (bits(intrinfoV1, line.intrinfo()) || bits(intrinfoV2, line.intrinfo()));
        }

        /** The row's unit or any of its names ("NETIR_LINK_EVT/NETIR_LINK_DOWN"). */
        private boolean unitIs(String lineUnit) {
            if (unit.equalsIgnoreCase(lineUnit)) {
                return true;
            }
            for (String name : unit.split("/")) {
                if (name.equalsIgnoreCase(lineUnit)) {
                    return true;
                }
            }
            return false;
        }

        /** NVIDIA's pattern, most significant bit first: '1' and '0' must be so, '-' is either. */
        private static boolean bits(String pattern, long value) {
            if (value < 0 || value > 0xFFFF_FFFFL) {
                return false;
            }
            for (int i = 0; i < 32; i++) {
                char c = pattern.charAt(i);
                long bit = (value >> (31 - i)) & 1;
                if (c == '1' && bit == 0 || c == '0' && bit == 1) {
                    return false;
                }
            }
            return true;
        }

        /** NVIDIA says no action and calls it non-fatal, with no second action to take. */
        boolean ignorable() {
            return resolution.equals("IGNORE") && severity.equals("Non-fatal") && action2.equals("-");
        }

        boolean resets() {
            return resolution.equals("RESET_GPU");
        }

        /** "SAW_MVB status 0x00000008: NVIDIA IGNORE, CONTACT_SUPPORT". */
        String describe() {
            return unit + " status " + String.format(Locale.ROOT, "0x%08x", errorStatus) + ": NVIDIA " + resolution
                    + (investigatory.equals("-") || investigatory.equals(resolution) ? "" : ", " + investigatory);
        }
    }

    /** A line with what the table says of it: its row, if any, and nhc's decision. */
    record Decoded(Nvlink5Line line, Optional<Row> row, Decision decision) {
    }

    private static final class Holder {
        static final Nvlink5Decode TABLE = load();
    }

    private final CatalogueFile file;
    private final List<Row> rows;

    private Nvlink5Decode(CatalogueFile file, List<Row> rows) {
        this.file = file;
        this.rows = rows;
    }

    static Nvlink5Decode get() {
        return Holder.TABLE;
    }

    private static Nvlink5Decode load() {
        CatalogueFile f = CatalogueFile.load(Nvlink5Decode.class, "nvlink5-decode.tsv", COLUMNS);
        List<Row> rows = new ArrayList<>();
        for (CatalogueFile.Row r : f.rows()) {
            int xid = f.number(r, 0);
            for (int c : new int[]{2, 3}) {
                if (!r.cell(c).matches("[01-]{32}")) {
                    throw new IllegalStateException(f.name() + ":" + r.line() + ": '" + r.cell(c) + "' is not 32 bits of 0, 1 or -");
                }
            }
            if (xid < FIRST || xid > LAST || !r.cell(4).matches("0x[0-9a-f]{8}")) {
                throw new IllegalStateException(f.name() + ":" + r.line() + ": not an NVLink5 XID (144-150) with an error status 0x…");
            }
            rows.add(new Row(xid, r.cell(1), r.cell(2), r.cell(3), Long.decode(r.cell(4)), r.cell(5), r.cell(6), r.cell(7), r.cell(8)));
        }
        return new Nvlink5Decode(f, List.copyOf(rows));
    }

    List<Row> rows() {
        return rows;
    }

    CatalogueFile file() {
        return file;
    }

    /** The first row that matches the line (NVIDIA's rows for one unit and status do not overlap). */
    Optional<Row> row(int xid, Nvlink5Line line) {
        return rows.stream().filter(r -> r.matches(xid, line)).findFirst();
    }

    /** The decision for one NVLink5 XID line's text (after the XID number), or empty when it has no NVLink5 tail. */
    static Optional<Decoded> decode(int xid, String rest) {
        if (xid < FIRST || xid > LAST || rest == null) {
            return Optional.empty();
        }
        return Nvlink5Line.parse(rest).map(line -> {
            Optional<Row> row = get().row(xid, line);
            return new Decoded(line, row, decide(line, row));
        });
    }

    static Decision decide(Nvlink5Line line, Optional<Row> row) {
        if (line.fatal() || row.map(Row::resets).orElse(false)) {
            return Decision.FATAL;
        }
        return row.map(Row::ignorable).orElse(false) ? Decision.IGNORE : Decision.WARNING;
    }

    /** An XID event whose own line the table says to ignore: a Nonfatal line NVIDIA gives no action for. */
    static boolean ignores(XidEvent e) {
        return e.kind() == XidEvent.Kind.XID && !Boolean.TRUE.equals(e.fatal())
                && decode(e.code(), e.text()).map(d -> d.decision() == Decision.IGNORE).orElse(false);
    }

    /** The mapping in words: the resource's mapping block and docs/DESIGN.md say exactly this. */
    static List<String> mappingText() {
        return List.of(
                "  an NVLink5 line (XID 144-150) is decoded by its unit, its first register (the row's intrinfo bits)",
                "  and its second (the error status); then:",
                "  the line says Fatal                                        fatal    reset-gpu",
                "  its row's resolution is RESET_GPU                          fatal    reset-gpu",
                "  its row says IGNORE, severity Non-fatal, no second action  ignore   none",
                "  any other row (XID_154_EVAL, a second action, a fatal      warning  reset-gpu",
                "    severity on a Nonfatal line), or no row for the line");
    }

    /** The table {@code nhc list gpu.xid} prints after the XID catalogue. */
    List<String> listing() {
        List<String> out = new ArrayList<>();
        out.add("NVLink5 decode (XIDs 144-150, " + rows.size() + " rows):");
        file.comments().stream().takeWhile(c -> !c.startsWith("regenerate:")).forEach(c -> out.add("  " + c));
        out.add("  mapping:");
        mappingText().forEach(l -> out.add("  " + l));
        out.add(String.format(Locale.ROOT, "  %-4s %-30s %-10s %-8s %-12s %-13s %s", "XID", "unit", "status", "nhc", "resolution", "severity",
                "intrinfo (v1 | v2)"));
        for (Row r : rows) {
            String nhc = r.resets() ? "fatal" : r.ignorable() ? "ignore" : "by-line";
            out.add(String.format(Locale.ROOT, "  %-4d %-30s 0x%08x %-8s %-12s %-13s %s | %s", r.xid(), r.unit(), r.errorStatus(), nhc,
                    r.resolution(), r.severity(), r.intrinfoV1(), r.intrinfoV2()));
        }
        out.add("  by-line: fatal when the line says Fatal, else a warning");
        return out;
    }
}
