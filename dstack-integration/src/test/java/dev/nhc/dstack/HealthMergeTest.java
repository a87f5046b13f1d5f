package dev.nhc.dstack;

import dev.nhc.engine.config.OnUnknown;
import dev.nhc.probe.Tags;
import dev.nhc.model.CheckResult;
import dev.nhc.model.CheckStatus;
import dev.nhc.model.Severity;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static dev.nhc.dstack.Verdicts.check;
import static dev.nhc.dstack.Verdicts.finding;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HealthMergeTest {
    private static final HealthMerge MERGE = new HealthMerge(dev.nhc.engine.policy.SeverityPolicy.STANDARD);


    private static final Map<String, Object> SHIM_WARN = Map.of("dcgm", Map.of("overall_health", 10, "incidents", List.of(
            Map.of("system", 128, "health", 10, "error_message", "GPU 1 is hot", "error_code", 3, "entity_group_id", 1, "entity_id", 1))));

    @SuppressWarnings("unchecked")
    private static Map<String, Object> dcgm(Map<String, Object> answer) {
        return (Map<String, Object>) answer.get("dcgm");
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> incidents(Map<String, Object> answer) {
        return (List<Map<String, Object>>) dcgm(answer).get("incidents");
    }

    @Test
    void healthyShimAndHealthyNhcIsPassWithoutIncidents() {
        var out = MERGE.merge(new ShimHealth.Answer(Map.of("dcgm", Map.of("overall_health", 0, "incidents", List.of()))),
                Verdicts.healthy(), OnUnknown.IGNORE);
        assertEquals(0, dcgm(out).get("overall_health"));
        assertTrue(incidents(out).isEmpty());
    }

    @Test
    void nhcFailOutranksShimWarnAndIsListedFirstWithTheShimIncidentKept() {
        var v = Verdicts.with(check("gpu-ecc", "gpu.ecc", CheckStatus.COMPLETED,
                finding("GPU 3", Severity.FAIL, "GPU 3: 2 volatile double-bit ECC errors")));
        var out = MERGE.merge(new ShimHealth.Answer(SHIM_WARN), v, OnUnknown.IGNORE);
        assertEquals(20, dcgm(out).get("overall_health"));
        List<Map<String, Object>> inc = incidents(out);
        assertEquals(2, inc.size());
        assertEquals("nhc: gpu-ecc: GPU 3: 2 volatile double-bit ECC errors", inc.get(0).get("error_message"));
        assertEquals(20, inc.get(0).get("health"));
        assertEquals(DcgmSystem.MEM, inc.get(0).get("system"));
        assertEquals(1, inc.get(0).get("entity_group_id"));
        assertEquals(3, inc.get(0).get("entity_id"));
        assertEquals("GPU 1 is hot", inc.get(1).get("error_message"));
        assertEquals(3, inc.get(1).get("error_code"));
    }

    @Test
    void shimFailOutranksNhcWarn() {
        var shimFail = Map.<String, Object>of("dcgm", Map.of("overall_health", 20, "incidents", List.of()));
        var v = Verdicts.with(check("root-fs", "disk.usage", CheckStatus.COMPLETED, finding("/", Severity.WARN, "/ is 90% full")));
        var out = MERGE.merge(new ShimHealth.Answer(shimFail), v, OnUnknown.IGNORE);
        assertEquals(20, dcgm(out).get("overall_health"));
        Map<String, Object> only = incidents(out).get(0);
        assertEquals(10, only.get("health"));
        assertEquals(0, only.get("system"));
        assertEquals(0, only.get("entity_group_id"));
        assertEquals(0, only.get("entity_id"));
    }

    @Test
    void shimWithoutDcgmLeavesNhcAlone() {
        var v = Verdicts.with(check("root-fs", "disk.usage", CheckStatus.COMPLETED, finding("/", Severity.WARN, "/ is 90% full")));
        var body = new java.util.HashMap<String, Object>();
        body.put("dcgm", null);
        body.put("other", "kept");
        var out = MERGE.merge(new ShimHealth.Answer(body), v, OnUnknown.IGNORE);
        assertEquals(10, dcgm(out).get("overall_health"));
        assertEquals("kept", out.get("other"));
    }

    @Test
    void aSettledUnknownIsAWarningWhateverTheConfigsDefault() {
        // A finding still UNKNOWN in a verdict was kept so by its check's own on_unknown: ignore.
        var v = Verdicts.with(check("dcgm", "dcgm.health", CheckStatus.ERROR, finding("node", Severity.UNKNOWN, "dcgmi not found")));
        assertEquals(10, dcgm(MERGE.merge(new ShimHealth.Down("x"), v, OnUnknown.IGNORE)).get("overall_health"));
        assertEquals(10, dcgm(MERGE.merge(new ShimHealth.Down("x"), v, OnUnknown.FAIL)).get("overall_health"));
    }

    @Test
    void anUnknownNoCheckSettledCountsByTheConfigsOnUnknown() {
        assertEquals(10, dcgm(MERGE.merge(new ShimHealth.Down("x"), null, OnUnknown.WARN)).get("overall_health"));
        assertEquals(20, dcgm(MERGE.merge(new ShimHealth.Down("x"), null, OnUnknown.FAIL)).get("overall_health"));
        assertEquals(20, dcgm(MERGE.merge(new ShimHealth.Malformed("x"), Verdicts.healthy(), OnUnknown.FAIL)).get("overall_health"));
    }

    @Test
    void shimDownGivesNhcAloneWithoutExtraIncident() {
        var out = MERGE.merge(new ShimHealth.Down("refused"), Verdicts.healthy(), OnUnknown.IGNORE);
        assertEquals(0, dcgm(out).get("overall_health"));
        assertTrue(incidents(out).isEmpty());
    }

    @Test
    void invalidShimValuesAreNeverPassedOnButReportedAsAnIncident() {
        var bad = Map.<String, Object>of("dcgm", Map.of("overall_health", 5, "incidents", List.of()));
        var out = MERGE.merge(new ShimHealth.Answer(bad), Verdicts.healthy(), OnUnknown.IGNORE);
        assertEquals(10, dcgm(out).get("overall_health"));
        assertTrue(((String) incidents(out).get(0).get("error_message")).contains("overall_health is 5"));
        var badIncident = Map.<String, Object>of("dcgm", Map.of("overall_health", 0, "incidents", List.of(Map.of("health", 7))));
        var out2 = MERGE.merge(new ShimHealth.Answer(badIncident), Verdicts.healthy(), OnUnknown.IGNORE);
        assertEquals(1, incidents(out2).size());
        assertTrue(((String) incidents(out2).get(0).get("error_message")).contains("incident 0 has health 7"));
    }

    @Test
    void checkThatTimedOutWithoutFindingsStillGetsAnIncident() {
        var timedOut = new CheckResult("gpus", "gpu.inventory", Verdicts.tags("gpu.inventory"), CheckStatus.TIMED_OUT, Severity.FAIL, 10_000,
                List.of(), List.of(), "abandoned after 10s: NVML hung");
        var out = MERGE.merge(new ShimHealth.Down("x"), Verdicts.with(timedOut), OnUnknown.IGNORE);
        assertEquals(20, dcgm(out).get("overall_health"));
        assertEquals("nhc: gpus: abandoned after 10s: NVML hung", incidents(out).get(0).get("error_message"));
    }

    @Test
    void noVerdictYetIsTreatedAsNoOpinion() {
        var out = MERGE.merge(new ShimHealth.Down("x"), null, OnUnknown.IGNORE);
        assertEquals(10, dcgm(out).get("overall_health"));
    }

    @Test
    void skippedChecksAndPassFindingsAddNothing() {
        var v = Verdicts.with(CheckResult.skipped("dcgm-diag", "dcgm.diag", Verdicts.tags("dcgm.diag"), "not due"),
                check("root-fs", "disk.usage", CheckStatus.COMPLETED, finding("/", Severity.PASS, "fine")));
        var out = MERGE.merge(new ShimHealth.Down("x"), v, OnUnknown.IGNORE);
        assertTrue(incidents(out).isEmpty());
        assertNull(HealthMerge.shimProblem(Map.of("dcgm", Map.of("overall_health", 20, "incidents", List.of()))));
    }

    @Test
    void theHealthSystemBitComesFromTheProbesTagsNeverItsName() {
        assertEquals(DcgmSystem.NVLINK, DcgmSystem.of(java.util.Set.of(Tags.GPU, Tags.NVLINK), Severity.WARN));
        assertEquals(DcgmSystem.NVSWITCH_FATAL, DcgmSystem.of(java.util.Set.of(Tags.GPU, Tags.NVSWITCH), Severity.FAIL));
        assertEquals(DcgmSystem.NVSWITCH_NONFATAL, DcgmSystem.of(java.util.Set.of(Tags.FABRIC), Severity.WARN));
        assertEquals(DcgmSystem.MEM, DcgmSystem.of(java.util.Set.of(Tags.GPU, Tags.MEMORY), Severity.FAIL));
        assertEquals(DcgmSystem.NONE, DcgmSystem.of(java.util.Set.of(Tags.HOST, Tags.MEMORY), Severity.FAIL), "host memory is not a GPU's");
        assertEquals(DcgmSystem.NONE, DcgmSystem.of(java.util.Set.of(), Severity.FAIL));
    }
}
