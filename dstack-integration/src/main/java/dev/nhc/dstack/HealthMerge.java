package dev.nhc.dstack;

import dev.nhc.engine.config.OnUnknown;
import dev.nhc.engine.policy.SeverityOrder;
import dev.nhc.engine.policy.SeverityPolicy;
import dev.nhc.model.CheckResult;
import dev.nhc.model.CheckStatus;
import dev.nhc.model.Finding;
import dev.nhc.model.Severity;
import dev.nhc.model.Verdict;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

/**
 * The one policy of the health proxy: the answer dstack gets for {@code /api/instance/health} is the
 * worse of the shim's DCGM verdict and nhc's (by the daemon's severity policy), with the shim's
 * incidents kept and one incident per nhc finding added. dstack marks a host unreachable when this
 * answer fails its validation, so the result is always an object whose health values are only ever
 * 0, 10 or 20 ({@link DstackHealth}).
 */
public final class HealthMerge {
    private final SeverityPolicy policy;

    public HealthMerge(SeverityPolicy policy) {
        this.policy = policy;
    }

    /**
     * @param verdict the daemon's latest verdict, null before the first run finished
     * @param onUnknown settings.on_unknown; for dstack "ignore" still means warning (DESIGN: unknown → warning by default)
     */
    public Map<String, Object> merge(ShimHealth shim, Verdict verdict, OnUnknown onUnknown) {
        Map<String, Object> top = new LinkedHashMap<>();
        Map<String, Object> dcgm = new LinkedHashMap<>();
        List<Map<String, Object>> incidents = new ArrayList<>();
        Severity overall = policy.order().best();

        if (shim instanceof ShimHealth.Answer a) {
            String problem = shimProblem(a.body());
            if (problem == null) {
                top.putAll(a.body());
                Object d = a.body().get("dcgm");
                if (d instanceof Map<?, ?> m) {
                    m.forEach((k, v) -> dcgm.put(String.valueOf(k), v));
                    overall = DstackHealth.severity(((Number) m.get("overall_health")).intValue());
                    for (Object i : (List<?>) m.get("incidents")) {
                        incidents.add(copy((Map<?, ?>) i));
                    }
                }
            } else {
                shim = new ShimHealth.Malformed(problem);
            }
        }
        if (shim instanceof ShimHealth.Malformed bad) {
            // The DCGM view is lost; like any check that could not decide, that counts by on_unknown.
            int health = unsettled(onUnknown);
            incidents.add(incident(0, health, "nhc: dstack-shim's health answer is unusable (" + bad.why()
                    + "); showing nhc's verdict only", 0, 0));
        }

        incidents.addAll(nhcIncidents(verdict, onUnknown));
        SeverityOrder order = policy.order();
        for (Map<String, Object> i : incidents) {
            overall = order.worst(overall, severity(i));
        }
        // dstack shows the first incident's message as the host's: worst first, shim's before nhc's on a tie.
        incidents.sort(Comparator.comparing(HealthMerge::severity, order.worstFirst()));
        dcgm.put("overall_health", DstackHealth.of(overall));
        dcgm.put("incidents", incidents);
        top.put("dcgm", dcgm);
        return top;
    }

    private static Severity severity(Map<String, Object> incident) {
        return DstackHealth.severity(((Number) incident.get("health")).intValue());
    }

    /** One incident per nhc finding that is not a pass; a failed check without findings gets one from its note. */
    List<Map<String, Object>> nhcIncidents(Verdict verdict, OnUnknown onUnknown) {
        List<Map<String, Object>> out = new ArrayList<>();
        if (verdict == null) {
            out.add(incident(0, unsettled(onUnknown), "nhc: no verdict yet (first run in progress)", 0, 0));
            return out;
        }
        for (CheckResult c : verdict.checks()) {
            if (c.status() == CheckStatus.SKIPPED) {
                continue;
            }
            boolean any = false;
            for (Finding f : c.findings()) {
                if (f.severity() == Severity.PASS) {
                    continue;
                }
                any = true;
                OptionalInt gpu = f.entity().gpuIndex();
                String check = f.check() != null ? f.check() : c.name();
                out.add(incident(DcgmSystem.of(c.tags(), f.severity()), value(f.severity()),
                        "nhc: " + check + ": " + f.message(), gpu.isPresent() ? 1 : 0, gpu.orElse(0)));
            }
            if (!any && c.severity() != Severity.PASS) {
                String why = c.note() != null ? c.note() : c.status().label();
                out.add(incident(DcgmSystem.of(c.tags(), c.severity()), value(c.severity()),
                        "nhc: " + c.name() + ": " + why, 0, 0));
            }
        }
        return out;
    }

    /**
     * dstack's health value for a check's or finding's severity. The check's own on_unknown was
     * applied when it was settled; the config's default must not be again.
     */
    static int value(Severity s) {
        return DstackHealth.of(s);
    }

    /** dstack's health value for an unknown no check settled (no verdict yet, an unusable shim answer): settings.on_unknown decides. */
    int unsettled(OnUnknown onUnknown) {
        return value(policy.unknownCountsAs(onUnknown));
    }

    /** Why the shim's body would fail dstack's validation, or null when it would pass. */
    static String shimProblem(Map<String, Object> body) {
        if (!body.containsKey("dcgm")) {
            return "no 'dcgm' member";
        }
        Object d = body.get("dcgm");
        if (d == null) {
            return null; // the shim without libdcgm
        }
        if (!(d instanceof Map<?, ?> m)) {
            return "'dcgm' is not an object";
        }
        if (!isHealth(m.get("overall_health"))) {
            return "overall_health is " + m.get("overall_health") + ", not 0, 10 or 20";
        }
        if (!(m.get("incidents") instanceof List<?> list)) {
            return "'incidents' is not a list";
        }
        int n = 0;
        for (Object o : list) {
            if (!(o instanceof Map<?, ?> i)) {
                return "incident " + n + " is not an object";
            }
            if (!isHealth(i.get("health"))) {
                return "incident " + n + " has health " + i.get("health") + ", not 0, 10 or 20";
            }
            for (String k : List.of("system", "error_code", "entity_group_id", "entity_id")) {
                if (!isInteger(i.get(k))) {
                    return "incident " + n + " has no integer '" + k + "'";
                }
            }
            if (!(i.get("error_message") instanceof String)) {
                return "incident " + n + " has no 'error_message' string";
            }
            n++;
        }
        return null;
    }

    private static boolean isInteger(Object o) {
        return o instanceof Integer || o instanceof Long || o instanceof java.math.BigInteger;
    }

    private static boolean isHealth(Object o) {
        if (!isInteger(o)) {
            return false;
        }
        return DstackHealth.isHealth(((Number) o).longValue());
    }

    private static Map<String, Object> copy(Map<?, ?> m) {
        Map<String, Object> out = new LinkedHashMap<>();
        m.forEach((k, v) -> out.put(String.valueOf(k), v));
        return out;
    }

    static Map<String, Object> incident(int system, int health, String message, int entityGroup, int entityId) {
        Map<String, Object> i = new LinkedHashMap<>();
        i.put("system", system);
        i.put("health", health);
        i.put("error_message", message);
        i.put("error_code", 0);
        i.put("entity_group_id", entityGroup);
        i.put("entity_id", entityId);
        return i;
    }
}
