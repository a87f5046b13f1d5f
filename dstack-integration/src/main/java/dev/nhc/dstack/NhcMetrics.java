package dev.nhc.dstack;

import dev.nhc.model.CheckResult;
import dev.nhc.model.CheckStatus;
import dev.nhc.model.Observation;
import dev.nhc.model.Severity;
import dev.nhc.model.Verdict;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.function.Supplier;

/**
 * Metrics built at scrape time from the daemon's latest state, so that a check removed by a reload
 * disappears instead of leaving a stale series. Severity is coded pass 0, unknown 1, warn 2, fail 3
 * (the engine's order), so that {@code max by (instance)} is the node's verdict.
 * Every series carries the configured dstack labels (dstack_project_name, dstack_fleet_name,
 * dstack_instance_name) to join with dstack's own metrics.
 */
public final class NhcMetrics implements MultiCollector {
    private final Supplier<DaemonStatus> status;
    private final ShimProxy.Stats proxy;
    private final Labels constant;

    public NhcMetrics(Supplier<DaemonStatus> status, ShimProxy.Stats proxy, Map<String, String> dstackLabels) {
        this.status = status;
        this.proxy = proxy;
        List<String> names = new ArrayList<>(dstackLabels.keySet());
        List<String> values = names.stream().map(dstackLabels::get).toList();
        this.constant = Labels.of(names, values);
    }

    public PrometheusRegistry registry() {
        PrometheusRegistry r = new PrometheusRegistry();
        r.register(this);
        return r;
    }

    @Override
    public MetricSnapshots collect() {
        DaemonStatus s = status.get();
        List<MetricSnapshot> out = new ArrayList<>();
        Verdict v = s.verdict();

        GaugeSnapshot.Builder verdictSeverity = gauge("nhc_verdict_severity",
                "worst severity of the node's latest verdict: 0 pass, 1 unknown, 2 warn, 3 fail");
        GaugeSnapshot.Builder checkSeverity = gauge("nhc_check_severity", "latest severity per check: 0 pass, 1 unknown, 2 warn, 3 fail");
        GaugeSnapshot.Builder checkFindings = gauge("nhc_check_findings", "findings of the latest run per check and severity");
        GaugeSnapshot.Builder checkDuration = gauge("nhc_check_duration_seconds", "how long the latest run of the check took");
        GaugeSnapshot.Builder checkLastRun = gauge("nhc_check_last_run_timestamp_seconds", "when the check's latest result came in");
        GaugeSnapshot.Builder checkUp = gauge("nhc_check_completed", "1 when the check's latest run completed, 0 when it timed out or failed to run");
        GaugeSnapshot.Builder gpuField = gauge("nhc_gpu_observation", "numeric fields a check observed per GPU (counters and readings)");
        if (v != null) {
            verdictSeverity.dataPoint(point(v.severity().ordinal(), Labels.EMPTY));
            for (CheckResult c : v.checks()) {
                if (c.status() == CheckStatus.SKIPPED) {
                    continue;
                }
                Labels l = Labels.of("check", c.name(), "probe", c.probe() == null ? "" : c.probe());
                checkSeverity.dataPoint(point(c.severity().ordinal(), l));
                checkDuration.dataPoint(point(c.durationMs() / 1000.0, l));
                checkUp.dataPoint(point(c.status() == CheckStatus.COMPLETED ? 1 : 0, l));
                Instant at = s.finishedAt().get(c.name());
                if (at != null) {
                    checkLastRun.dataPoint(point(at.toEpochMilli() / 1000.0, l));
                }
                for (Severity sev : Severity.values()) {
                    long n = c.findings().stream().filter(f -> f.severity() == sev).count();
                    checkFindings.dataPoint(point(n, Labels.of("check", c.name(), "severity", sev.label())));
                }
                for (Observation o : c.observations()) {
                    OptionalInt gpu = GpuIndex.of(c.probe(), o.entity());
                    if (gpu.isEmpty()) {
                        continue;
                    }
                    o.fields().forEach((field, value) -> {
                        Double d = numeric(value);
                        if (d != null) {
                            gpuField.dataPoint(point(d, Labels.of("check", c.name(), "gpu", Integer.toString(gpu.getAsInt()), "field", field)));
                        }
                    });
                }
            }
        }
        out.add(verdictSeverity.build());
        out.add(checkSeverity.build());
        out.add(checkFindings.build());
        out.add(checkDuration.build());
        out.add(checkLastRun.build());
        out.add(checkUp.build());
        out.add(gpuField.build());

        out.add(gauge("nhc_daemon_healthy", "1 when nhc itself has no trouble (state writes work, config accepted), else 0")
                .dataPoint(point(s.problems().isEmpty() ? 1 : 0, Labels.EMPTY)).build());
        out.add(gauge("nhc_daemon_start_time_seconds", "when the daemon started")
                .dataPoint(point(s.startedAt().toEpochMilli() / 1000.0, Labels.EMPTY)).build());
        out.add(counter("nhc_state_write_errors", "failed writes of the verdict to state_dir", s.stateWriteErrors(), Labels.EMPTY));
        out.add(CounterSnapshot.builder().name("nhc_config_reloads").help("config reloads (SIGHUP) by result")
                .dataPoint(cpoint(s.reloads() - s.reloadFailures(), Labels.of("result", "ok")))
                .dataPoint(cpoint(s.reloadFailures(), Labels.of("result", "rejected"))).build());
        if (proxy != null) {
            out.add(counter("nhc_proxy_requests", "requests to the shim health proxy", proxy.requests.sum(), Labels.EMPTY));
            out.add(counter("nhc_proxy_upstream_errors", "forwarded requests that got no answer from dstack-shim", proxy.upstreamErrors.sum(), Labels.EMPTY));
            out.add(counter("nhc_proxy_refused", "pass-through requests answered 503 because every worker was busy", proxy.refused.sum(), Labels.EMPTY));
            out.add(CounterSnapshot.builder().name("nhc_proxy_health_answers").help("health answers given to dstack, by the state of the shim's own answer")
                    .dataPoint(cpoint(proxy.healthAnswers.sum() - proxy.shimDownAnswers.sum() - proxy.shimMalformedAnswers.sum(), Labels.of("shim", "ok")))
                    .dataPoint(cpoint(proxy.shimDownAnswers.sum(), Labels.of("shim", "down")))
                    .dataPoint(cpoint(proxy.shimMalformedAnswers.sum(), Labels.of("shim", "malformed"))).build());
        }
        return new MetricSnapshots(out);
    }

    private static Double numeric(Object value) {
        if (value instanceof Number n) {
            return n.doubleValue();
        }
        if (value instanceof Boolean b) {
            return b ? 1.0 : 0.0;
        }
        return null;
    }

    private GaugeSnapshot.Builder gauge(String name, String help) {
        return GaugeSnapshot.builder().name(name).help(help);
    }

    private GaugeSnapshot.GaugeDataPointSnapshot point(double value, Labels labels) {
        return GaugeSnapshot.GaugeDataPointSnapshot.builder().value(value).labels(constant.merge(labels)).build();
    }

    private CounterSnapshot.CounterDataPointSnapshot cpoint(double value, Labels labels) {
        return CounterSnapshot.CounterDataPointSnapshot.builder().value(value).labels(constant.merge(labels)).build();
    }

    private MetricSnapshot counter(String name, String help, double value, Labels labels) {
        return CounterSnapshot.builder().name(name).help(help).dataPoint(cpoint(value, labels)).build();
    }
}
