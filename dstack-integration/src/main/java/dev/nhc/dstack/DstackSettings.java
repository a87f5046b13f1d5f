package dev.nhc.dstack;

import dev.nhc.daemon.HostPort;
import dev.nhc.engine.plan.Plan;
import dev.nhc.probe.Params;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/** The {@code dstack:} section as the proxy uses it (every value checked when the config was loaded). */
public record DstackSettings(HostPort listen, HostPort shim, boolean proxy, Map<String, String> labels, int proxyThreads,
                             Duration shimTimeout) {

    public static DstackSettings of(Plan plan) {
        Params p = plan.config().section(DstackSection.KEY);
        Map<String, String> labels = new LinkedHashMap<>();
        putIf(labels, "dstack_project_name", DstackSection.PROJECT.get(p));
        putIf(labels, "dstack_fleet_name", DstackSection.FLEET.get(p));
        putIf(labels, "dstack_instance_name", DstackSection.INSTANCE.get(p));
        return new DstackSettings(HostPort.parse(DstackSection.LISTEN.get(p)), HostPort.parse(DstackSection.SHIM.get(p)),
                DstackSection.PROXY.get(p), Map.copyOf(labels), DstackSection.PROXY_THREADS.get(p).intValue(),
                DstackSection.SHIM_TIMEOUT.get(p));
    }

    private static void putIf(Map<String, String> m, String k, String v) {
        if (v != null && !v.isBlank()) {
            m.put(k, v);
        }
    }
}
