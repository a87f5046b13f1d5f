package dev.nhc.daemon;

import dev.nhc.model.CheckResult;
import dev.nhc.model.CheckStatus;
import dev.nhc.model.Finding;
import dev.nhc.model.Observation;
import dev.nhc.engine.policy.SeverityOrder;
import dev.nhc.engine.policy.SeverityPolicy;
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
import java.util.LinkedHashMap;
import java.util.OptionalInt;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Metrics built at scrape time from the daemon's latest state, so that a check removed by a reload
 * disappears instead of leaving a stale series. Severity is coded by the severity policy's rank
 * (pass 0, unknown 1, warn 2, fail 3), so that {@code max by (instance)} is the node's verdict.
 * Every series carries the plugins' constant labels (dstack's project and fleet, to join with
 * dstack's own metrics), and the plugins add their own samples. The alert rules and the Grafana
 * dashboard over these metrics are {@code examples/prometheus/nhc-alerts.yml} and
 * {@code examples/grafana/nhc-fleet.json}.
 */
public final class NhcMetrics implements MultiCollector {
    private final SeverityOrder order;
    private final Supplier<DaemonStatus> status;
    private final Supplier<Map<String, String>> labels;
    private final Consumer<MetricsOut> plugins;

    public NhcMetrics(SeverityPolicy policy, Supplier<DaemonStatus> status, Supplier<Map<String, String>> labels, Consumer<MetricsOut> plugins) {
        this.order = policy.order();
        this.status = status;
        this.labels = labels;
        this.plugins = plugins;
    }

    private Labels constant() {
        Map<String, String> m = labels.get();
        List<String> names = new ArrayList<>(m.keySet());
        List<String> values = new ArrayList<>();
        names.forEach(n -> values.add(m.get(n)));
        return Labels.of(names, values);
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

        Labels constant = constant();
        GaugeSnapshot.Builder verdictSeverity = gauge("nhc_verdict_severity",
                "worst severity of the node's latest verdict: 0 pass, 1 unknown, 2 warn, 3 fail");
        GaugeSnapshot.Builder checkSeverity = gauge("nhc_check_severity", "latest severity per check: 0 pass, 1 unknown, 2 warn, 3 fail");
        GaugeSnapshot.Builder checkFindings = gauge("nhc_check_findings", "findings of the latest run per check and severity");
        GaugeSnapshot.Builder checkDuration = gauge("nhc_check_duration_seconds", "how long the latest run of the check took");
        GaugeSnapshot.Builder checkLastRun = gauge("nhc_check_last_run_timestamp_seconds", "when the check's latest result came in");
        GaugeSnapshot.Builder checkUp = gauge("nhc_check_completed", "1 when the check's latest run completed, 0 when it timed out or failed to run");
        GaugeSnapshot.Builder gpuField = gauge("nhc_gpu_observation", "numeric fields a check observed per GPU (counters and readings); "
                + "vendor when the probe says who made the GPU");
        GaugeSnapshot.Builder findings = gauge("nhc_findings",
                "warn, fail and unknown findings of the latest run by check, severity and remedy; gpu when a finding is about one GPU; "
                        + "only combinations with findings are present");
        IbPortMetrics ibPorts = new IbPortMetrics(constant);
        if (v != null) {
            verdictSeverity.dataPoint(point(constant, order.rank(v.severity()), Labels.EMPTY));
            for (CheckResult c : v.checks()) {
                if (c.status() == CheckStatus.SKIPPED) {
                    continue;
                }
                Labels l = Labels.of("check", c.name(), "probe", c.probe() == null ? "" : c.probe());
                checkSeverity.dataPoint(point(constant, order.rank(c.severity()), l));
                checkDuration.dataPoint(point(constant, c.durationMs() / 1000.0, l));
                checkUp.dataPoint(point(constant, c.status() == CheckStatus.COMPLETED ? 1 : 0, l));
                Instant at = s.finishedAt().get(c.name());
                if (at != null) {
                    checkLastRun.dataPoint(point(constant, at.toEpochMilli() / 1000.0, l));
                }
                for (Severity sev : order.severities()) {
                    long n = c.findings().stream().filter(f -> f.severity() == sev).count();
                    checkFindings.dataPoint(point(constant, n, Labels.of("check", c.name(), "severity", sev.label())));
                }
                Map<Labels, Long> byRemedy = new LinkedHashMap<>();
                for (Finding f : c.findings()) {
                    if (f.severity() != Severity.PASS) {
                        Labels fl = l.add("severity", f.severity().label()).add("remedy", f.remedy().label());
                        OptionalInt gpu = f.entity().gpuIndex();
                        byRemedy.merge(gpu.isPresent() ? fl.add("gpu", Integer.toString(gpu.getAsInt())) : fl, 1L, Long::sum);
                    }
                }
                byRemedy.forEach((fl, n) -> findings.dataPoint(point(constant, n, fl)));
                ibPorts.add(c);
                for (Observation o : c.observations()) {
                    OptionalInt gpu = o.entity().gpuIndex();
                    if (gpu.isEmpty()) {
                        continue;
                    }
                    // who made the GPU, when its probe says (a GPU probe's "vendor" field): one dashboard for mixed fleets
                    Labels gl = o.get("vendor") instanceof String vendor
                            ? Labels.of("check", c.name(), "gpu", Integer.toString(gpu.getAsInt()), "vendor", vendor)
                            : Labels.of("check", c.name(), "gpu", Integer.toString(gpu.getAsInt()));
                    o.fields().forEach((field, value) -> {
                        Double d = numeric(value);
                        if (d != null) {
                            gpuField.dataPoint(point(constant, d, gl.add("field", field)));
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
        out.add(findings.build());
        out.addAll(ibPorts.snapshots());

        out.add(gauge("nhc_daemon_healthy", "1 when nhc itself has no trouble (state writes work, config accepted), else 0")
                .dataPoint(point(constant, s.problems().isEmpty() ? 1 : 0, Labels.EMPTY)).build());
        out.add(gauge("nhc_daemon_start_time_seconds", "when the daemon started")
                .dataPoint(point(constant, s.startedAt().toEpochMilli() / 1000.0, Labels.EMPTY)).build());
        out.add(counter(constant, "nhc_state_write_errors", "failed writes of the verdict to state_dir", s.stateWriteErrors(), Labels.EMPTY));
        out.add(CounterSnapshot.builder().name("nhc_config_reloads").help("config reloads (SIGHUP) by result")
                .dataPoint(cpoint(constant, s.reloads() - s.reloadFailures(), Labels.of("result", "ok")))
                .dataPoint(cpoint(constant, s.reloadFailures(), Labels.of("result", "rejected"))).build());
        PluginSamples samples = new PluginSamples(constant);
        plugins.accept(samples);
        out.addAll(samples.snapshots());
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

    private static GaugeSnapshot.Builder gauge(String name, String help) {
        return GaugeSnapshot.builder().name(name).help(help);
    }

    private static GaugeSnapshot.GaugeDataPointSnapshot point(Labels constant, double value, Labels labels) {
        return GaugeSnapshot.GaugeDataPointSnapshot.builder().value(value).labels(constant.merge(labels)).build();
    }

    private static CounterSnapshot.CounterDataPointSnapshot cpoint(Labels constant, double value, Labels labels) {
        return CounterSnapshot.CounterDataPointSnapshot.builder().value(value).labels(constant.merge(labels)).build();
    }

    private static MetricSnapshot counter(Labels constant, String name, String help, double value, Labels labels) {
        return CounterSnapshot.builder().name(name).help(help).dataPoint(cpoint(constant, value, labels)).build();
    }

    /** The plugins' samples, gathered by metric name. */
    private static final class PluginSamples implements MetricsOut {
        private final Labels constant;
        private final Map<String, GaugeSnapshot.Builder> gauges = new LinkedHashMap<>();
        private final Map<String, CounterSnapshot.Builder> counters = new LinkedHashMap<>();

        PluginSamples(Labels constant) {
            this.constant = constant;
        }

        @Override
        public void gauge(String name, String help, double value, String... labelPairs) {
            gauges.computeIfAbsent(name, n -> GaugeSnapshot.builder().name(n).help(help)).dataPoint(point(constant, value, labels(labelPairs)));
        }

        @Override
        public void counter(String name, String help, double value, String... labelPairs) {
            counters.computeIfAbsent(name, n -> CounterSnapshot.builder().name(n).help(help)).dataPoint(cpoint(constant, value, labels(labelPairs)));
        }

        private static Labels labels(String[] pairs) {
            if (pairs.length % 2 != 0) {
                throw new IllegalArgumentException("label pairs must come in twos");
            }
            return Labels.of(pairs);
        }

        List<MetricSnapshot> snapshots() {
            List<MetricSnapshot> out = new ArrayList<>();
            gauges.values().forEach(b -> out.add(b.build()));
            counters.values().forEach(b -> out.add(b.build()));
            return out;
        }
    }
}
