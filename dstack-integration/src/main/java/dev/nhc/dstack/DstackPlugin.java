package dev.nhc.dstack;

import dev.nhc.daemon.DaemonContext;
import dev.nhc.daemon.DaemonPlugin;
import dev.nhc.daemon.MetricsOut;
import dev.nhc.engine.plan.Plan;

import java.io.IOException;
import java.util.List;
import java.util.Map;

/**
 * dstack's part of {@code nhc daemon}, wanted when the config has a {@code dstack:} section: the
 * shim health proxy in front of dstack-shim, answering dstack's health poll from the daemon's
 * latest verdict, and dstack's project/fleet labels on every metric.
 */
public final class DstackPlugin implements DaemonPlugin {
    private final ShimProxy.Stats stats = new ShimProxy.Stats();
    private volatile DaemonContext daemon;
    /** Written on start and reload, read by metricLabels() on the status server's threads. */
    private volatile DstackSettings settings;
    /** Read by /healthz and /metrics on the status server's threads. */
    private volatile ShimProxy proxy;

    @Override
    public String name() {
        return "dstack proxy";
    }

    @Override
    public boolean wanted(Plan plan) {
        return plan.config().hasSection(DstackSection.KEY);
    }

    @Override
    public void start(DaemonContext d) throws IOException {
        this.daemon = d;
        listen(DstackSettings.of(d.plan()));
    }

    private void listen(DstackSettings s) throws IOException {
        proxy = open(s);
        settings = s;
    }

    /** A started proxy for these settings, or null when they ask for none. */
    private ShimProxy open(DstackSettings s) throws IOException {
        if (!s.proxy()) {
            return null;
        }
        ShimProxy px = new ShimProxy(s.listen(), s.shim(), s.proxyThreads(), s.shimTimeout(), daemon::verdict,
                () -> daemon.plan().settings().onUnknown(), new HealthMerge(daemon.policy()), stats, daemon::fatal).start();
        daemon.log("dstack shim health proxy on " + px.address().getHostString() + ":" + px.address().getPort()
                + " in front of dstack-shim on " + s.shim());
        return px;
    }

    /** What the running proxy is made of: a change of anything else (the labels) leaves it and its connections alone. */
    private static boolean sameProxy(DstackSettings a, DstackSettings b) {
        return a.proxy() == b.proxy() && a.listen().equals(b.listen()) && a.shim().equals(b.shim())
                && a.proxyThreads() == b.proxyThreads() && a.shimTimeout().equals(b.shimTimeout());
    }

    /**
     * Labels alone: nothing restarts. A new listen address: the new proxy is started before the old
     * one closes, so a failure leaves the old one serving. The same address with other settings: the
     * old proxy must let go of it first; if the new one then fails, the old settings are started
     * again, and if even that fails both reasons are logged and there is no proxy until a reload
     * that works (what is thrown is the first failure).
     */
    @Override
    public void reloaded(Plan plan) throws IOException {
        DstackSettings s = DstackSettings.of(plan);
        DstackSettings old = settings;
        if (s.equals(old)) {
            return;
        }
        if (sameProxy(s, old)) {
            settings = s;
            return;
        }
        if (!s.proxy() || !old.proxy() || !s.listen().equals(old.listen())) {
            ShimProxy next = open(s); // throws with the old proxy untouched
            ShimProxy prev = proxy;
            proxy = next;
            settings = s;
            if (prev != null) {
                prev.close();
            }
            return;
        }
        closeProxy();
        try {
            listen(s);
        } catch (IOException | RuntimeException e) {
            try {
                listen(old);
            } catch (IOException | RuntimeException again) {
                e.addSuppressed(again);
                settings = old;
                daemon.log("dstack proxy: the old settings could not be started again either (" + again.getMessage()
                        + "): no shim health proxy until a reload that works");
            }
            throw e;
        }
    }

    /** Where the proxy listens (port 0 in tests picks a free one); null without a proxy. */
    public java.net.InetSocketAddress proxyAddress() {
        ShimProxy p = proxy;
        return p == null ? null : p.address();
    }

    /** The shim's health answer lost (hung, broken or down): /healthz says "degraded" with why; the proxy still serves. */
    @Override
    public List<String> problems() {
        ShimProxy p = proxy;
        String shim = p == null ? null : p.shimHealthProblem();
        return shim == null ? List.of() : List.of(shim);
    }

    /** The pass-through pool full, requests the shim has not answered for long, or the listener stopped: /healthz says 503 with why. */
    @Override
    public List<String> unavailable() {
        ShimProxy p = proxy;
        return p == null ? List.of() : p.problems();
    }

    @Override
    public Map<String, String> metricLabels() {
        DstackSettings s = settings;
        return s == null ? Map.of() : s.labels();
    }

    @Override
    public void metrics(MetricsOut out) {
        if (proxy == null) {
            return;
        }
        out.counter("nhc_proxy_requests", "requests to the shim health proxy", stats.requests.sum());
        out.counter("nhc_proxy_upstream_errors", "forwarded requests that got no answer from dstack-shim", stats.upstreamErrors.sum());
        out.counter("nhc_proxy_refused", "pass-through requests answered 503 because every worker was busy", stats.refused.sum());
        String help = "health answers given to dstack, by the state of the shim's own answer";
        // Its own counter: a difference of counters read one after another could go down between scrapes.
        out.counter("nhc_proxy_health_answers", help, stats.shimOkAnswers.sum(), "shim", "ok");
        out.counter("nhc_proxy_health_answers", help, stats.shimDownAnswers.sum(), "shim", "down");
        out.counter("nhc_proxy_health_answers", help, stats.shimMalformedAnswers.sum(), "shim", "malformed");
    }

    private void closeProxy() {
        if (proxy != null) {
            proxy.close();
            proxy = null;
        }
    }

    @Override
    public void close() {
        closeProxy();
    }
}
