package dev.nhc.dstack;

import dev.nhc.engine.config.Config;
import dev.nhc.probe.Params;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/** The {@code dstack:} section, converted; defaults come from {@link DstackSection#PARAMS}. */
public record DstackSettings(HostPort listen, HostPort shim, boolean proxy, HostPort metricsListen,
                             Map<String, String> labels, String token, int proxyThreads, Duration shimTimeout) {

    public static DstackSettings of(Config config) {
        Params p = config.section(DstackSection.KEY);
        Map<String, Object> withDefaults = new LinkedHashMap<>();
        DstackSection.PARAMS.forEach(s -> withDefaults.put(s.name(), s.defaultValue()));
        p.asMap().forEach((k, v) -> {
            if (v != null) {
                withDefaults.put(k, v);
            }
        });
        Params v = new Params(withDefaults);
        Map<String, String> labels = new LinkedHashMap<>();
        putIf(labels, "dstack_project_name", v.string("project"));
        putIf(labels, "dstack_fleet_name", v.string("fleet"));
        putIf(labels, "dstack_instance_name", v.string("instance"));
        long threads = v.integer("proxy_threads");
        if (threads < 1 || threads > 1024) {
            throw new IllegalArgumentException("dstack.proxy_threads: " + threads + " is outside 1..1024");
        }
        Duration shimTimeout = v.duration("shim_timeout");
        if (shimTimeout.compareTo(Duration.ofSeconds(8)) > 0) {
            throw new IllegalArgumentException("dstack.shim_timeout: " + shimTimeout.toSeconds()
                    + "s leaves no time for nhc's answer inside dstack's 9 s budget; use 8s or less");
        }
        return new DstackSettings(HostPort.parse("listen", v.string("listen")), HostPort.parse("shim", v.string("shim")),
                Boolean.TRUE.equals(v.bool("proxy")), HostPort.parse("metrics_listen", v.string("metrics_listen")),
                Map.copyOf(labels), v.string("token"), (int) threads, shimTimeout);
    }

    private static void putIf(Map<String, String> m, String k, String v) {
        if (v != null && !v.isBlank()) {
            m.put(k, v);
        }
    }
}
