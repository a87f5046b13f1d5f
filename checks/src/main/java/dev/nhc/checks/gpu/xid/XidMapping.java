package dev.nhc.checks.gpu.xid;

import dev.nhc.checks.dcgm.DcgmErrorCodes;
import dev.nhc.model.Remedy;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The one mapping from NVIDIA's resolution for an XID (the catalogue's immediate action) and
 * DCGM's health rule for it to nhc's judgement: the impact, the remedy, and whether Slurm should
 * FAIL the node (it needs service) rather than DRAIN it. The XID catalogue resource states this
 * mapping in its header, docs/DESIGN.md too, and a test holds both to {@link #mappingText()}.
 *
 * <p>Why each resolution maps as it does:
 * <ul>
 *   <li>RESET_GPU, RESTART_BM, RESTART_VM and NVIDIA's workflows for 48 and 74 say the GPU (or the
 *       node) is unusable until it is reset or rebooted: fatal, latched until then.</li>
 *   <li>CHECK_MECHANICALS (XID 54: the board's auxiliary power is not connected) is fatal and needs
 *       a person at the machine: Slurm FAIL.</li>
 *   <li>RESTART_APP and the XID 45 workflow are the application's: counted per job, never the node's
 *       fault by themselves (see {@link XidJobs}).</li>
 *   <li>IGNORE: NVIDIA says no action.</li>
 *   <li>CONTACT_SUPPORT, CHECK_UVM, UPDATE_SWFW and no resolution at all (the newest XIDs): NVIDIA
 *       gives no recovery nhc could take, or one that depends on what nhc cannot see (whether UVM
 *       is in use): a warning, so the XID is seen and never dropped. Where the driver itself wants a
 *       reset it says so with XID 154, which nhc judges by the action in the line.</li>
 *   <li>The NVLink5 workflow (144-150) and XID 154 are judged by their line: the severity the
 *       driver prints ("Fatal") or the recovery action it names.</li>
 * </ul>
 * DCGM's health rules apply where they are stricter: a FAIL makes the XID fatal, a WARN makes it at
 * least a warning (an application XID stays counted per job). A DCGM rule that names an error whose
 * DCGM severity is ISOLATE ("cannot perform workload; the GPU should be isolated": fallen off the
 * bus, uncontained error) asks Slurm to FAIL the node. DCGM rules for one architecture only are not
 * applied: gpu.xid does not know the GPU's architecture.
 */
final class XidMapping {
    /** How an XID bears on the node, before the check's own lists and the line's words. */
    enum Impact {
        FATAL, WARNING, APPLICATION, IGNORE,
        /** Decided by the line: NVLink5's "Fatal"/"Non-fatal", XID 154's recovery action. */
        BY_LINE;

        String label() {
            return this == BY_LINE ? "by-line" : name().toLowerCase(Locale.ROOT);
        }
    }

    /** nhc's judgement of one XID: impact, remedy, Slurm FAIL instead of DRAIN, and whether jobs are counted. */
    record Judgement(Impact impact, Remedy remedy, boolean service, boolean application) {
        String slurm() {
            return impact == Impact.FATAL || impact == Impact.BY_LINE ? (service ? "fail" : "drain") : "-";
        }
    }

    /** DCGM's rule for one XID, as the catalogue's dcgm column writes it: "FAIL ALL DCGM_FR_FALLEN_OFF_BUS". */
    record DcgmRule(String result, String system, String code, String architecture) {
        static final DcgmRule NONE = new DcgmRule("-", "-", "-", null);

        static DcgmRule parse(String cell) {
            if (cell.equals("-")) {
                return NONE;
            }
            String[] w = cell.split(" ");
            if (w.length < 3 || w.length > 4 || !(w[0].equals("FAIL") || w[0].equals("WARN")) || !w[2].startsWith("DCGM_FR_")) {
                throw new IllegalArgumentException("DCGM rule '" + cell + "' is not \"FAIL|WARN SYSTEM DCGM_FR_CODE [architecture]\"");
            }
            return new DcgmRule(w[0], w[1], w[2], w.length == 4 ? w[3] : null);
        }

        boolean applies() {
            return !result.equals("-") && architecture == null;
        }

        @Override
        public String toString() {
            return result.equals("-") ? "-" : result + " " + system + (architecture == null ? "" : " (" + architecture + ")");
        }
    }

    private record Bucket(Impact impact, Remedy remedy, boolean service) {
    }

    /** NVIDIA's resolution buckets, strongest first; "-" is an XID NVIDIA gives no resolution. */
    private static final Map<String, Bucket> BUCKETS = new LinkedHashMap<>();

    static {
        bucket("RESTART_BM", Impact.FATAL, Remedy.REBOOT, false);
        bucket("RESTART_VM", Impact.FATAL, Remedy.REBOOT, false);
        bucket("CHECK_MECHANICALS", Impact.FATAL, Remedy.HARDWARE, true);
        bucket("RESET_GPU", Impact.FATAL, Remedy.RESET_GPU, false);
        bucket("WORKFLOW_XID_48", Impact.FATAL, Remedy.RESET_GPU, false);
        bucket("WORKFLOW_NVLINK_ERR", Impact.FATAL, Remedy.RESET_GPU, false);
        bucket("WORKFLOW_NVLINK5_ERR", Impact.BY_LINE, Remedy.RESET_GPU, false);
        bucket("XID_154", Impact.BY_LINE, Remedy.NONE, false);
        bucket("CONTACT_SUPPORT", Impact.WARNING, Remedy.HARDWARE, false);
        bucket("CHECK_UVM", Impact.WARNING, Remedy.RESET_GPU, false);
        bucket("UPDATE_SWFW", Impact.WARNING, Remedy.NONE, false);
        bucket("-", Impact.WARNING, Remedy.NONE, false);
        bucket("RESTART_APP", Impact.APPLICATION, Remedy.RESTART_APP, false);
        bucket("WORKFLOW_XID_45", Impact.APPLICATION, Remedy.RESTART_APP, false);
        bucket("IGNORE", Impact.IGNORE, Remedy.NONE, false);
    }

    private static void bucket(String resolution, Impact impact, Remedy remedy, boolean service) {
        BUCKETS.put(resolution, new Bucket(impact, remedy, service));
    }

    private XidMapping() {
    }

    /** Marks a resolution that is nhc's reading of the driver source for an XID newer than the catalogue, never NVIDIA's. */
    static final String DRIVER = "driver:";

    static boolean knows(String resolution) {
        return BUCKETS.containsKey(bucketOf(resolution));
    }

    private static String bucketOf(String resolution) {
        return resolution.startsWith(DRIVER) ? resolution.substring(DRIVER.length()) : resolution;
    }

    /** The judgement of an XID whose catalogue resolution is {@code resolution} and whose DCGM rule is {@code dcgm}. */
    static Judgement judge(String resolution, DcgmRule dcgm) {
        Bucket b = BUCKETS.get(bucketOf(resolution));
        if (b == null) {
            throw new IllegalArgumentException("NVIDIA resolution '" + resolution + "' is not in nhc's mapping " + BUCKETS.keySet());
        }
        Impact impact = b.impact();
        Remedy remedy = b.remedy();
        boolean service = b.service();
        boolean application = impact == Impact.APPLICATION;
        if (dcgm.applies()) {
            if (dcgm.result().equals("FAIL") && impact != Impact.FATAL) {
                impact = Impact.FATAL;
                remedy = remedy.ordinal() >= Remedy.RESET_GPU.ordinal() ? remedy : Remedy.RESET_GPU;
            } else if (dcgm.result().equals("WARN") && (impact == Impact.IGNORE || impact == Impact.APPLICATION)) {
                impact = Impact.WARNING;
            }
            service |= isolates(dcgm.code()) && impact == Impact.FATAL;
        }
        return new Judgement(impact, remedy, service, application);
    }

    private static boolean isolates(String dcgmCode) {
        return DcgmErrorCodes.get().all().stream().anyMatch(c -> c.name().equals(dcgmCode) && c.severity().equals("ISOLATE"));
    }

    /** The mapping in words and as a table: the XID catalogue's mapping block and docs/DESIGN.md say exactly this. */
    static List<String> mappingText() {
        List<String> out = new ArrayList<>();
        out.add(String.format(Locale.ROOT, "  %-21s %-12s %-12s %s", "resolution", "impact", "remedy", "slurm"));
        BUCKETS.forEach((resolution, b) -> out.add(String.format(Locale.ROOT, "  %-21s %-12s %-12s %s", resolution, b.impact().label(),
                b.impact() == Impact.BY_LINE && b.remedy() == Remedy.NONE ? "by-line" : b.remedy().label(),
                new Judgement(b.impact(), b.remedy(), b.service(), false).slurm())));
        out.add("  driver:X (an XID newer than the catalogue, read from the driver source) maps as X;");
        out.add("  then DCGM's health rule for the XID where it is stricter: FAIL makes it fatal (remedy at least reset-gpu),");
        out.add("  WARN makes it at least a warning (an application XID is still counted per job); a rule naming a DCGM");
        out.add("  error of severity ISOLATE (cannot perform workload) makes a fatal XID Slurm FAIL; rules for one");
        out.add("  architecture only are not applied. application: counted per Slurm job; the same GPU under");
        out.add("  application_jobs different jobs within application_window is fatal (remedy hardware).");
        return out;
    }
}
