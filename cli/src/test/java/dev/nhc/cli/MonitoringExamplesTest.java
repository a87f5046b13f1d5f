package dev.nhc.cli;

import com.fasterxml.jackson.jr.ob.JSON;
import dev.nhc.daemon.DaemonStatus;
import dev.nhc.daemon.NhcMetrics;
import dev.nhc.engine.policy.SeverityPolicy;
import dev.nhc.model.Entity;
import dev.nhc.probe.Tags;
import dev.nhc.slurm.SlurmPlugin;
import dev.nhc.model.CheckResult;
import dev.nhc.model.CheckStatus;
import dev.nhc.model.Finding;
import dev.nhc.model.Observation;
import dev.nhc.model.Remedy;
import dev.nhc.model.Severity;
import dev.nhc.model.Verdict;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.DataPointSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The shipped Prometheus rules and Grafana dashboard ({@code examples/prometheus}, {@code examples/grafana})
 * only use metrics and labels the daemon exports, and
 * promtool accepts and passes the rules' unit tests when it is installed. Their end-to-end test against
 * a real Prometheus is {@code cli/src/e2e/prometheus-e2e.sh}.
 */
class MonitoringExamplesTest {
    private static final Path EXAMPLES = Path.of("src/main/dist/examples");
    private static final Path RULES = EXAMPLES.resolve("prometheus/nhc-alerts.yml");
    private static final Path RULE_TESTS = EXAMPLES.resolve("prometheus/nhc-alerts.test.yml");
    private static final Path DASHBOARD = EXAMPLES.resolve("grafana/nhc-fleet.json");

    /** Labels Prometheus adds to every scraped series. */
    private static final Set<String> TARGET_LABELS = Set.of("job", "instance");
    private static final Set<String> GRAFANA_BUILTINS = Set.of("__rate_interval", "__interval", "__range");

    private static final Pattern SELECTOR = Pattern.compile("\\b([a-zA-Z_:][a-zA-Z0-9_:]*)\\s*\\{([^}]*)}");
    private static final Pattern MATCHER = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)\\s*(=~|!~|!=|=)\\s*\"");
    private static final Pattern NHC_METRIC = Pattern.compile("\\bnhc_[a-z0-9_]+\\b");
    private static final Pattern VARIABLE = Pattern.compile("\\$\\{?(\\w+)}?");

    /** Metric name → label names, as the daemon exports them for a verdict that uses every kind of series. */
    private static Map<String, Set<String>> exported;

    @BeforeAll
    static void collectWhatTheDaemonExports() {
        Instant t = Instant.parse("2026-11-22T04:00:00Z");
        Entity gpu1 = Entity.gpu(1, "0000:3b:00.0");
        Verdict v = SeverityPolicy.STANDARD.verdict("gpu-017", t, 40, List.of(
                new CheckResult("gpus", "gpu.inventory", Set.of(Tags.GPU), CheckStatus.COMPLETED, Severity.PASS, 3, List.of(),
                        List.of(Observation.of(gpu1).put("pci_bus_id", "0000:3b:00.0").put("persistence_mode", true).build()), null),
                new CheckResult("gpu-xid", "gpu.xid", Set.of(Tags.GPU), CheckStatus.COMPLETED, Severity.FAIL, 2,
                        List.of(new Finding("gpu-xid", gpu1, Severity.FAIL, "XID 79", Remedy.REBOOT, null, Map.of())),
                        List.of(Observation.of(gpu1).put("xid_latched", 1L).put("xid_new", 1L).build()), null),
                new CheckResult("root-space", "disk.usage", Set.of(Tags.HOST), CheckStatus.COMPLETED, Severity.WARN, 1,
                        List.of(new Finding("root-space", Entity.of(Entity.Kind.MOUNT, "/"), Severity.WARN, "/ is 91% full", Remedy.NONE,
                                null, Map.of())), List.of(), null),
                new CheckResult("ib", "ib.ports", Set.of(Tags.NETWORK, Tags.INFINIBAND), CheckStatus.COMPLETED, Severity.PASS, 1, List.of(),
                        List.of(Observation.of(Entity.of(Entity.Kind.PORT, "mlx5_0/1", "port mlx5_0/1")).put("active", true)
                                .put("link_downed", 0L).put("link_error_recovery", 2L).build()), null)));
        DaemonStatus status = new DaemonStatus(v, Map.of("gpus", t, "gpu-xid", t, "root-space", t), t, List.of(), 0, 1, 0);
        exported = new HashMap<>();
        SlurmPlugin slurm = new SlurmPlugin();
        for (MetricSnapshot m : new NhcMetrics(dev.nhc.engine.policy.SeverityPolicy.STANDARD, () -> status, () -> Map.of("dstack_fleet_name", "f"), slurm::metrics).collect()) {
            String name = m.getMetadata().getPrometheusName() + (m instanceof CounterSnapshot ? "_total" : "");
            Set<String> labels = exported.computeIfAbsent(name, k -> new TreeSet<>());
            for (DataPointSnapshot p : m.getDataPoints()) {
                p.getLabels().forEach(l -> labels.add(l.getName()));
            }
        }
        assertTrue(exported.containsKey("nhc_findings") && exported.get("nhc_findings").contains("gpu")
                && exported.getOrDefault("nhc_ib_port_state", Set.of()).contains("port"), () -> "verdict too poor: " + exported);
    }

    /** Every metric and label a PromQL expression selects on is one the daemon exports (or Prometheus adds). */
    private static List<String> unknownMetricsAndLabels(String where, String expr) {
        List<String> problems = new ArrayList<>();
        Matcher names = NHC_METRIC.matcher(expr);
        while (names.find()) {
            if (!exported.containsKey(names.group())) {
                problems.add(where + ": nhc does not export " + names.group() + " in: " + expr);
            }
        }
        Matcher s = SELECTOR.matcher(expr);
        while (s.find()) {
            String metric = s.group(1);
            Set<String> known = metric.equals("up") ? Set.of() : exported.get(metric);
            if (known == null) {
                continue;
            }
            Matcher m = MATCHER.matcher(s.group(2));
            while (m.find()) {
                if (!known.contains(m.group(1)) && !TARGET_LABELS.contains(m.group(1))) {
                    problems.add(where + ": " + metric + " has no label " + m.group(1) + " (it has " + known + ") in: " + expr);
                }
            }
        }
        return problems;
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> alertRules() throws IOException {
        Map<String, Object> doc = new Yaml().load(Files.readString(RULES));
        List<Map<String, Object>> rules = new ArrayList<>();
        for (Map<String, Object> g : (List<Map<String, Object>>) doc.get("groups")) {
            rules.addAll((List<Map<String, Object>>) g.get("rules"));
        }
        return rules;
    }

    @Test
    @SuppressWarnings("unchecked")
    void everyAlertSelectsOnlyWhatTheDaemonExportsAndSaysWhatToDo() throws IOException {
        List<String> problems = new ArrayList<>();
        Set<String> names = new LinkedHashSet<>();
        for (Map<String, Object> r : alertRules()) {
            String name = (String) r.get("alert");
            assertTrue(name != null && names.add(name), () -> "every rule is an alert with a unique name: " + r);
            problems.addAll(unknownMetricsAndLabels("alert " + name, (String) r.get("expr")));
            Map<String, Object> labels = (Map<String, Object>) r.get("labels");
            if (labels == null || !Set.of("critical", "warning").contains(labels.get("severity"))) {
                problems.add("alert " + name + ": labels.severity must be critical or warning");
            }
            Map<String, Object> annotations = (Map<String, Object>) r.get("annotations");
            if (annotations == null || !(annotations.get("summary") instanceof String) || !(annotations.get("description") instanceof String)) {
                problems.add("alert " + name + ": needs a summary and a description");
            }
        }
        assertEquals(List.of(), problems);
        assertTrue(names.containsAll(List.of("NhcNodeFailing", "NhcNodeUnknown", "NhcFatalXid", "NhcLatchedFault",
                "NhcDaemonDown", "NhcDaemonStale", "NhcCircuitBreakerOpen", "NhcIbLinkFlapping")), names::toString);
    }

    @Test
    @SuppressWarnings("unchecked")
    void everyAlertHasAUnitTestInWhichItFires() throws IOException {
        Map<String, Object> doc = new Yaml().load(Files.readString(RULE_TESTS));
        Set<String> fired = new TreeSet<>();
        Set<String> silent = new TreeSet<>();
        for (Map<String, Object> t : (List<Map<String, Object>>) doc.get("tests")) {
            for (Map<String, Object> a : (List<Map<String, Object>>) t.get("alert_rule_test")) {
                List<?> expected = (List<?>) a.get("exp_alerts");
                (expected == null || expected.isEmpty() ? silent : fired).add((String) a.get("alertname"));
            }
        }
        Set<String> all = new TreeSet<>();
        alertRules().forEach(r -> all.add((String) r.get("alert")));
        assertEquals(all, fired, "alerts without a test in which they fire");
        Set<String> withFor = new TreeSet<>();
        alertRules().stream().filter(r -> r.containsKey("for")).forEach(r -> withFor.add((String) r.get("alert")));
        assertTrue(silent.containsAll(withFor), () -> "alerts with for: but no test that they wait first: " + withFor);
    }

    @Test
    @SuppressWarnings("unchecked")
    void theDashboardIsAGrafanaDashboardWhosePanelsQueryNhcsMetricsThroughTheDatasourceVariable() throws IOException {
        Map<String, Object> d = JSON.std.mapFrom(Files.readString(DASHBOARD));
        assertTrue(((Number) d.get("schemaVersion")).intValue() >= 36, "schemaVersion");
        assertEquals("nhc-fleet", d.get("uid"));

        Map<String, Map<String, Object>> vars = new HashMap<>();
        for (Object o : (List<Object>) ((Map<String, Object>) d.get("templating")).get("list")) {
            Map<String, Object> v = (Map<String, Object>) o;
            vars.put((String) v.get("name"), v);
        }
        assertEquals("datasource", vars.get("datasource").get("type"));
        assertEquals("prometheus", vars.get("datasource").get("query"));
        assertTrue(vars.containsKey("job") && vars.containsKey("instance"), vars::toString);
        assertEquals(".*", vars.get("instance").get("allValue"), "all nodes as a regex, for =~");

        List<String> problems = new ArrayList<>();
        Set<Object> ids = new LinkedHashSet<>();
        List<int[]> cells = new ArrayList<>();
        int queries = 0;
        for (Object o : (List<Object>) d.get("panels")) {
            Map<String, Object> p = (Map<String, Object>) o;
            String title = "panel '" + p.get("title") + "'";
            if (!ids.add(p.get("id"))) {
                problems.add(title + ": duplicate id " + p.get("id"));
            }
            Map<String, Object> pos = (Map<String, Object>) p.get("gridPos");
            int x = ((Number) pos.get("x")).intValue(), y = ((Number) pos.get("y")).intValue();
            int w = ((Number) pos.get("w")).intValue(), h = ((Number) pos.get("h")).intValue();
            if (x < 0 || w < 1 || x + w > 24) {
                problems.add(title + ": outside the 24 columns: " + pos);
            }
            for (int[] c : cells) {
                if (x < c[0] + c[2] && c[0] < x + w && y < c[1] + c[3] && c[1] < y + h) {
                    problems.add(title + ": overlaps another panel at " + pos);
                }
            }
            cells.add(new int[] {x, y, w, h});
            if ("row".equals(p.get("type"))) {
                continue;
            }
            if (p.get("description") == null || p.get("description").toString().isBlank()) {
                problems.add(title + ": no description");
            }
            List<Object> targets = (List<Object>) p.get("targets");
            if (targets == null || targets.isEmpty()) {
                problems.add(title + ": no targets");
                continue;
            }
            for (Object to : targets) {
                Map<String, Object> t = (Map<String, Object>) to;
                String expr = (String) t.get("expr");
                if (expr == null || expr.isBlank()) {
                    problems.add(title + ": a target without expr");
                    continue;
                }
                queries++;
                for (Object ds : List.of(p.get("datasource"), t.get("datasource"))) {
                    if (!(ds instanceof Map<?, ?> m) || !"${datasource}".equals(m.get("uid"))) {
                        problems.add(title + ": datasource is not the ${datasource} variable: " + ds);
                    }
                }
                Matcher v = VARIABLE.matcher(expr);
                while (v.find()) {
                    if (!vars.containsKey(v.group(1)) && !GRAFANA_BUILTINS.contains(v.group(1))) {
                        problems.add(title + ": undefined variable $" + v.group(1) + " in: " + expr);
                    }
                }
                if (!expr.contains("instance=~\"$instance\"")) {
                    problems.add(title + ": ignores the node selection: " + expr);
                }
                problems.addAll(unknownMetricsAndLabels(title, expr));
            }
        }
        assertEquals(List.of(), problems);
        assertTrue(queries >= 20, "queries: " + queries);
    }

    @Test
    void theDashboardCoversWhatAnAdminWatches() throws IOException {
        String json = Files.readString(DASHBOARD);
        for (String metric : List.of("nhc_verdict_severity", "nhc_findings", "nhc_gpu_observation", "nhc_slurm_actions_total",
                "nhc_ib_port_link_downed_total", "nhc_check_last_run_timestamp_seconds", "up{")) {
            assertTrue(json.contains(metric), "the dashboard has no panel over " + metric);
        }
    }

    private static String promtool(String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("promtool"));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).directory(RULES.getParent().toFile()).redirectErrorStream(true).start();
        p.getOutputStream().close();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail("promtool " + String.join(" ", args) + " did not finish within 120 s");
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), () -> "promtool " + String.join(" ", args) + ":\n" + out);
        return out;
    }

    private static boolean onPath(String tool) {
        String path = System.getenv("PATH");
        return path != null && List.of(path.split(File.pathSeparator)).stream().anyMatch(dir -> Files.isExecutable(Path.of(dir, tool)));
    }

    @Test
    void promtoolAcceptsTheRulesAndTheirUnitTestsPass() throws Exception {
        assumeTrue(onPath("promtool"), "promtool is not installed (Debian: apt-get install prometheus); "
                + "the rules' checks and unit tests run in .ci/run instead");
        assertTrue(promtool("check", "rules", RULES.getFileName().toString()).contains("SUCCESS"));
        assertTrue(promtool("test", "rules", RULE_TESTS.getFileName().toString()).contains("SUCCESS"));
    }
}
