package dev.nhc.checks.gpu.capture;

import dev.nhc.checks.gpu.GpuData;
import dev.nhc.checks.gpu.GpuFabric;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The "Fabric" section of nvidia-smi -q (captures written for this test in nvidia-smi's layout). */
public class CapturedFabricTest {

    /** An nvidia-smi -q capture of GPUs whose blocks end with the given Fabric sections. */
    public static String capture(String... fabricSections) {
        StringBuilder s = new StringBuilder("\n==============NVSMI LOG==============\n\n"
                + "Timestamp                                 : Wed Mar  4 11:30:00 2026\n"
                + "Driver Version                            : 570.124.06\n"
                + "CUDA Version                              : 12.8\n\n"
                + "Attached GPUs                             : " + fabricSections.length + "\n");
        for (int i = 0; i < fabricSections.length; i++) {
            s.append(String.format("GPU 00000000:%02X:00.0\n", 0x18 + 0x10 * i))
                    .append("    Product Name                          : NVIDIA H100 80GB HBM3\n")
                    .append(String.format("    GPU UUID                              : GPU-1111aaaa-2222-3333-4444-%012d\n", i))
                    .append("    Persistence Mode                      : Enabled\n")
                    .append(fabricSections[i])
                    .append("    Processes                             : None\n\n");
        }
        return s.toString();
    }

    public static String fabric(String state, String status, String health) {
        return "    Fabric\n"
                + "        State                             : " + state + "\n"
                + "        Status                            : " + status + "\n"
                + "        CliqueId                          : 4097\n"
                + "        ClusterUUID                       : 0d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6\n"
                + (health == null ? "" : "        Health\n" + health);
    }

    public static String health(String summary, String bandwidth, String recovery, String unhealthy, String timeout, String config) {
        return "            Summary                       : " + summary + "\n"
                + "            Bandwidth                     : " + bandwidth + "\n"
                + "            Route Recovery in progress    : " + recovery + "\n"
                + "            Route Unhealthy               : " + unhealthy + "\n"
                + "            Access Timeout Recovery       : " + timeout + "\n"
                + "            Incorrect Configuration       : " + config + "\n";
    }

    private static GpuFabric only(String section) {
        GpuCapture c = NvidiaSmiCapture.parse("smi-q.txt", capture(section));
        assertTrue(c.provides().contains(GpuData.FABRIC));
        return c.gpus().get(0).fabric();
    }

    @Test
    void aCompletedHealthyRegistrationReadsAsNvmlGivesIt() {
        GpuFabric f = only(fabric("Completed", "Success", health("Healthy", "Full", "False", "False", "False", "None")));
        assertEquals(GpuFabric.State.COMPLETED, f.state());
        assertEquals("Success", f.status());
        assertEquals(true, f.statusOk());
        assertEquals(4097L, f.cliqueId());
        assertEquals("0d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6", f.clusterUuid());
        assertEquals(GpuFabric.Health.HEALTHY, f.health());
        assertEquals(false, f.bandwidthDegraded());
        assertEquals(false, f.routeRecovery());
        assertEquals(false, f.routeUnhealthy());
        assertEquals(false, f.accessTimeoutRecovery());
        assertEquals("none", f.incorrectConfiguration());
    }

    @Test
    void faultsReadAsTheirFields() {
        GpuFabric f = only(fabric("Completed", "Unknown Error",
                health("Unhealthy", "Degraded", "True", "True", "True", "Insufficient NVLinks")));
        assertEquals(false, f.statusOk(), "a status other than Success is a failed registration, even 'Unknown Error'");
        assertEquals("Unknown Error", f.status());
        assertEquals(GpuFabric.Health.UNHEALTHY, f.health());
        assertEquals(true, f.bandwidthDegraded());
        assertEquals(true, f.routeRecovery());
        assertEquals(true, f.routeUnhealthy());
        assertEquals(true, f.accessTimeoutRecovery());
        assertEquals("insufficient-nvlinks", f.incorrectConfiguration());
        assertEquals(GpuFabric.Health.LIMITED_CAPACITY,
                only(fabric("Completed", "Success", health("Limited Capacity", "Full", "False", "False", "False", "None"))).health());
    }

    @Test
    void inProgressHasNoStatusYetAndOlderDriversNoHealth() {
        GpuFabric f = only(fabric("In Progress", "N/A", null));
        assertEquals(GpuFabric.State.IN_PROGRESS, f.state());
        assertNull(f.status());
        assertNull(f.statusOk());
        assertNull(f.health());
        assertNull(f.bandwidthDegraded());
        assertEquals(GpuFabric.State.NOT_STARTED, only(fabric("Not Started", "N/A", null)).state());
    }

    @Test
    void notApplicableMeansNoFabric() {
        assertNull(only(fabric("N/A", "N/A", health("N/A", "N/A", "N/A", "N/A", "N/A", "N/A"))));
    }

    @Test
    void aCaptureWithoutFabricSectionsHoldsNoFabricData() {
        GpuCapture c = NvidiaSmiCapture.parse("smi-q.txt", capture(""));
        assertFalse(c.provides().contains(GpuData.FABRIC));
        assertNull(c.gpus().get(0).fabric());
    }

    @Test
    void aWordNvidiaSmiDoesNotPrintIsAGapNamingItsLine() {
        assertEquals(List.of("GPU 0 (0000:18:00.0): line 14: expected a fabric state (Not Started, In Progress, Completed or N/A) for 'State',"
                + " found 'Registering'"), gaps(fabric("Registering", "N/A", null)));
        assertEquals(List.of("GPU 0 (0000:18:00.0): line 20: expected Full or Degraded for 'Bandwidth', found 'Half'"),
                gaps(fabric("Completed", "Success", health("Healthy", "Half", "False", "False", "False", "None"))));
        assertTrue(gaps(fabric("Completed", "Success", health("Healthy", "Full", "Maybe", "False", "False", "None"))).get(0)
                .contains("expected True or False for 'Route Recovery in progress', found 'Maybe'"));
    }

    /** What the capture of one GPU with this fabric section leaves unread: fabric data only, with its line. */
    private static List<String> gaps(String section) {
        GpuCapture c = NvidiaSmiCapture.parse("smi-q.txt", capture(section));
        assertTrue(c.gaps().stream().allMatch(g -> g.kinds().equals(java.util.Set.of(GpuData.FABRIC))), c.gaps().toString());
        return c.gaps().stream().map(GpuCapture.Gap::text).toList();
    }

    @Test
    void aCaptureBecomesAFakeNvmlScenarioWithTheSameFabric() {
        GpuCapture c = NvidiaSmiCapture.parse("smi-q.txt", capture(
                fabric("Completed", "Success", health("Limited Capacity", "Degraded", "False", "False", "False", "None"))));
        @SuppressWarnings("unchecked")
        Map<String, Object> gpu = (Map<String, Object>) ((java.util.List<Object>) FakeNvmlScenario.from(c).get("gpus")).get(0);
        @SuppressWarnings("unchecked")
        Map<String, Object> f = (Map<String, Object>) gpu.get("fabric");
        assertEquals(3, f.get("state"));
        assertEquals(0, f.get("status"));
        assertEquals(4097L, f.get("clique_id"));
        assertEquals(1L | 2 << 2 | 2 << 4 | 2 << 6 | 1 << 8, f.get("health_mask"));
        assertEquals(3, f.get("health_summary"));
    }
}
