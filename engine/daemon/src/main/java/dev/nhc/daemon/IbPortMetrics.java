package dev.nhc.daemon;

import dev.nhc.model.CheckResult;
import dev.nhc.model.Entity;
import dev.nhc.model.Observation;
import dev.nhc.probe.Tags;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;

import java.util.List;

/**
 * InfiniBand/RoCE port series from the observations of checks tagged {@code infiniband}, per
 * {@code check}, {@code device} and {@code port} (from the port entity's id, "mlx5_0/1"): whether the
 * port is Active, and its raw {@code link_downed} and {@code link_error_recovery} counters, so that
 * Prometheus computes flap rates itself ({@code increase(nhc_ib_port_link_downed_total[30m])}).
 * A port that could not be read has no series rather than a made-up value.
 */
final class IbPortMetrics {
    private final Labels constant;
    private final GaugeSnapshot.Builder state = GaugeSnapshot.builder().name("nhc_ib_port_state")
            .help("1 when the InfiniBand/RoCE port is Active, 0 otherwise");
    private final CounterSnapshot.Builder downed = CounterSnapshot.builder().name("nhc_ib_port_link_downed")
            .help("times the port's link went down (its link_downed counter; 8 bits, stops at 255)");
    private final CounterSnapshot.Builder recovered = CounterSnapshot.builder().name("nhc_ib_port_link_error_recovery")
            .help("times the port retrained after link errors (its link_error_recovery counter; 8 bits, stops at 255)");

    IbPortMetrics(Labels constant) {
        this.constant = constant;
    }

    void add(CheckResult check) {
        if (!check.hasTag(Tags.INFINIBAND)) {
            return;
        }
        for (Observation o : check.observations()) {
            String id = o.entity().id();
            int slash = id.lastIndexOf('/');
            if (o.entity().kind() != Entity.Kind.PORT || !o.readable() || slash <= 0 || slash == id.length() - 1) {
                continue;
            }
            Labels l = constant.merge(Labels.of("check", check.name(), "device", id.substring(0, slash), "port", id.substring(slash + 1)));
            if (o.get("active") instanceof Boolean active) {
                state.dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder().value(active ? 1 : 0).labels(l).build());
            }
            if (o.get("link_downed") instanceof Number n) {
                downed.dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder().value(n.doubleValue()).labels(l).build());
            }
            if (o.get("link_error_recovery") instanceof Number n) {
                recovered.dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder().value(n.doubleValue()).labels(l).build());
            }
        }
    }

    List<MetricSnapshot> snapshots() {
        return List.of(state.build(), downed.build(), recovered.build());
    }
}
