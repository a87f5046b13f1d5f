package dev.nhc.daemon;

import dev.nhc.model.CheckResult;
import dev.nhc.model.CheckStatus;
import dev.nhc.model.Entity;
import dev.nhc.model.Observation;
import dev.nhc.model.Severity;
import dev.nhc.model.Verdict;
import dev.nhc.probe.Tags;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** /metrics carries each InfiniBand port's state and raw flap counters, as the shipped alert rules and dashboard read them. */
class IbPortMetricsTest {

    private static Observation port(String id, boolean active, long downed, long recovered) {
        return Observation.of(Entity.of(Entity.Kind.PORT, id, "port " + id)).put("state", active ? "ACTIVE" : "DOWN").put("active", active)
                .put("link_downed", downed).put("link_error_recovery", recovered).build();
    }

    private static String scrape(CheckResult... checks) {
        Verdict v = new Verdict("gpu-029", Instant.parse("2026-11-20T10:00:00Z"), 12, List.of(checks), Severity.FAIL);
        DaemonStatus status = new DaemonStatus(v, Map.of(), Instant.parse("2026-11-20T09:00:00Z"), List.of(), 0, 0, 0);
        NhcMetrics metrics = new NhcMetrics(dev.nhc.engine.policy.SeverityPolicy.STANDARD, () -> status, () -> Map.of("fleet", "gpu-fleet"), out -> { });
        return PrometheusTextFormatWriter.create().toDebugString(metrics.collect());
    }

    @Test
    void portStateAndFlapCountersPerDeviceAndPort() {
        CheckResult ib = new CheckResult("ib", "ib.ports", Set.of(Tags.NETWORK, Tags.INFINIBAND), CheckStatus.COMPLETED, Severity.FAIL, 3,
                List.of(), List.of(Observation.of(Entity.NODE).put("ports_up", 7L).build(),
                        port("mlx5_0/1", true, 3, 17),
                        port("mlx5_10/1", false, 0, 0),
                        Observation.unreadable(Entity.of(Entity.Kind.PORT, "mlx5_4/1", "port mlx5_4/1"), "cannot read state")), null);
        // a site probe's port-like entity outside an infiniband check is not an InfiniBand port
        CheckResult other = new CheckResult("sw", "site.switch", Set.of(Tags.NETWORK), CheckStatus.COMPLETED, Severity.PASS, 1,
                List.of(), List.of(port("sw0/5", true, 1, 1)), null);
        String text = scrape(ib, other);

        assertTrue(text.contains("nhc_ib_port_state{check=\"ib\",device=\"mlx5_0\",fleet=\"gpu-fleet\",port=\"1\"} 1.0"), text);
        assertTrue(text.contains("nhc_ib_port_state{check=\"ib\",device=\"mlx5_10\",fleet=\"gpu-fleet\",port=\"1\"} 0.0"), text);
        assertTrue(text.contains("# TYPE nhc_ib_port_link_downed_total counter"), text);
        assertTrue(text.contains("nhc_ib_port_link_downed_total{check=\"ib\",device=\"mlx5_0\",fleet=\"gpu-fleet\",port=\"1\"} 3.0"), text);
        assertTrue(text.contains("nhc_ib_port_link_error_recovery_total{check=\"ib\",device=\"mlx5_0\",fleet=\"gpu-fleet\",port=\"1\"} 17.0"), text);
        assertFalse(text.contains("mlx5_4"), "an unreadable port has no series");
        assertFalse(text.contains("sw0"), text);
        assertEquals(2, text.lines().filter(l -> l.startsWith("nhc_ib_port_state{")).count(), text);
    }

    @Test
    void aReplayLikeReadingWithoutCountersHasStateOnly() {
        Observation noCounters = Observation.of(Entity.of(Entity.Kind.PORT, "mlx5_0/1", "port mlx5_0/1")).put("active", true).build();
        String text = scrape(new CheckResult("ib", "ib.ports", Set.of(Tags.INFINIBAND), CheckStatus.COMPLETED, Severity.PASS, 1,
                List.of(), List.of(noCounters), null));
        assertTrue(text.contains("nhc_ib_port_state{check=\"ib\",device=\"mlx5_0\",fleet=\"gpu-fleet\",port=\"1\"} 1.0"), text);
        assertFalse(text.lines().anyMatch(l -> l.startsWith("nhc_ib_port_link_downed_total{")), text);
    }
}
