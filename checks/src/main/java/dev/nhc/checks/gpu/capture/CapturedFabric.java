package dev.nhc.checks.gpu.capture;

import dev.nhc.checks.gpu.GpuFabric;
import dev.nhc.checks.gpu.capture.SmiQTree.Node;
import dev.nhc.checks.gpu.capture.SmiQTree.Problems;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The "Fabric" section of a GPU in {@code nvidia-smi -q} (drivers from R525; the Health block
 * from later ones), as the same {@link GpuFabric} NVML gives:
 *
 * <pre>
 *     Fabric
 *         State                             : Completed
 *         Status                            : Success
 *         CliqueId                          : 32766
 *         ClusterUUID                       : 6b0f2a1e-0c3d-4e5f-8a9b-0c1d2e3f4a5b
 *         Health
 *             Summary                       : Healthy
 *             Bandwidth                     : Full
 *             Route Recovery in progress    : False
 *             Route Unhealthy               : False
 *             Access Timeout Recovery       : False
 *             Incorrect Configuration       : None
 * </pre>
 *
 * A State of N/A is a GPU without a fabric (no fabric information at all). A value nhc judges that
 * is none of the words nvidia-smi prints is a problem with its line, never a guess.
 */
final class CapturedFabric {
    private static final Pattern NUMBER = Pattern.compile("\\d{1,10}");

    private CapturedFabric() {
    }

    static GpuFabric parse(Node fabric, Problems problems) {
        Node stateNode = fabric.child("State");
        String stateText = value(stateNode);
        if (stateText == null) {
            return null;
        }
        GpuFabric.State state = switch (stateText.toLowerCase(Locale.ROOT)) {
            case "not supported" -> GpuFabric.State.NOT_SUPPORTED;
            case "not started" -> GpuFabric.State.NOT_STARTED;
            case "in progress" -> GpuFabric.State.IN_PROGRESS;
            case "completed" -> GpuFabric.State.COMPLETED;
            default -> null;
        };
        if (state == null) {
            problems.problem(stateNode.line, "expected a fabric state (Not Started, In Progress, Completed or N/A) for 'State', found '"
                    + stateText + "'");
            return null;
        }
        String status = null;
        Boolean statusOk = null;
        if (state == GpuFabric.State.COMPLETED) {
            status = value(fabric.child("Status"));
            statusOk = status == null ? null : status.equalsIgnoreCase("Success");
        }
        Long clique = null;
        Node cliqueNode = fabric.child("CliqueId");
        String cliqueText = value(cliqueNode);
        if (cliqueText != null) {
            if (NUMBER.matcher(cliqueText).matches()) {
                clique = Long.parseLong(cliqueText);
            } else {
                problems.problem(cliqueNode.line, "expected a number for 'CliqueId', found '" + cliqueText + "'");
            }
        }
        String uuid = value(fabric.child("ClusterUUID"));
        if (uuid != null && uuid.replace("-", "").chars().allMatch(c -> c == '0')) {
            uuid = null;
        }
        Node health = fabric.child("Health");
        GpuFabric.Health summary = null;
        Boolean degraded = null;
        Boolean recovery = null;
        Boolean unhealthy = null;
        Boolean timeout = null;
        String config = null;
        if (health != null) {
            Node s = health.child("Summary");
            String summaryText = value(s);
            if (summaryText != null) {
                summary = switch (summaryText.toLowerCase(Locale.ROOT)) {
                    case "healthy" -> GpuFabric.Health.HEALTHY;
                    case "unhealthy" -> GpuFabric.Health.UNHEALTHY;
                    case "limited capacity" -> GpuFabric.Health.LIMITED_CAPACITY;
                    default -> {
                        problems.problem(s.line, "expected Healthy, Unhealthy or Limited Capacity for 'Summary', found '" + summaryText + "'");
                        yield null;
                    }
                };
            }
            Node bw = health.child("Bandwidth");
            String bwText = value(bw);
            if (bwText != null) {
                degraded = switch (bwText.toLowerCase(Locale.ROOT)) {
                    case "full", "false" -> Boolean.FALSE;
                    case "degraded", "true" -> Boolean.TRUE;
                    default -> {
                        problems.problem(bw.line, "expected Full or Degraded for 'Bandwidth', found '" + bwText + "'");
                        yield null;
                    }
                };
            }
            recovery = flag(health.child("Route Recovery in progress"), problems);
            unhealthy = flag(health.child("Route Unhealthy"), problems);
            timeout = flag(health.child("Access Timeout Recovery"), problems);
            String c = value(health.child("Incorrect Configuration"));
            config = c == null ? null : c.strip().toLowerCase(Locale.ROOT).replaceAll("[\\s_]+", "-");
        }
        return new GpuFabric(state, status, statusOk, state == GpuFabric.State.NOT_SUPPORTED ? null : clique, uuid, summary,
                degraded, recovery, unhealthy, timeout, config);
    }

    /** The value, or null for N/A, [N/A] and an empty value (nvidia-smi's "this GPU has none"). */
    private static String value(Node n) {
        if (n == null || n.value == null) {
            return null;
        }
        String v = n.value.strip();
        return v.isEmpty() || v.equalsIgnoreCase("N/A") || v.equalsIgnoreCase("[N/A]") ? null : v;
    }

    private static Boolean flag(Node n, Problems problems) {
        String v = value(n);
        if (v == null) {
            return null;
        }
        switch (v.toLowerCase(Locale.ROOT)) {
            case "true", "yes" -> {
                return true;
            }
            case "false", "no" -> {
                return false;
            }
            default -> {
                problems.problem(n.line, "expected True or False for '" + n.key + "', found '" + v + "'");
                return null;
            }
        }
    }
}
