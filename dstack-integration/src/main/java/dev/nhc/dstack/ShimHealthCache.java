package dev.nhc.dstack;

import com.fasterxml.jackson.jr.ob.JSON;
import dev.nhc.daemon.HostPort;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The shim's own answer to {@code GET /api/instance/health}, for the proxy's health route. The shim
 * is asked at most once at a time and an answer is reused for {@link #MAX_AGE}, so a burst of
 * health requests costs one upstream call. While the shim is being asked anew, an answer up to
 * {@link #MAX_STALE} old is given at once (a hung shim then costs no request its wait either);
 * only a request with nothing that recent waits, at most the shim timeout, for the fresh answer.
 * dstack polls about once a minute, so its polls get fresh answers; a few seconds' lag under a
 * burst changes nothing for it.
 */
final class ShimHealthCache {
    static final Duration MAX_AGE = Duration.ofSeconds(1);
    static final Duration MAX_STALE = Duration.ofSeconds(10);
    /** How long past its own timeout a call may run before it is given up (its body stalled after the headers). */
    private static final Duration GRACE = Duration.ofMillis(500);

    private record Stamped(ShimHealth health, long atNanos) {
    }

    private final HttpClient client;
    private final URI uri;
    private final HostPort shim;
    private final Duration timeout;
    private final int maxBytes;
    private volatile Stamped latest;
    private CompletableFuture<ShimHealth> inFlight;

    ShimHealthCache(HttpClient client, URI uri, HostPort shim, Duration timeout, int maxBytes) {
        this.client = client;
        this.uri = uri;
        this.shim = shim;
        this.timeout = timeout;
        this.maxBytes = maxBytes;
    }

    /** The shim's health: completed at once when a recent enough answer is known, else within the shim timeout (and a little). */
    CompletableFuture<ShimHealth> current() {
        Stamped s = latest;
        long age = s == null ? Long.MAX_VALUE : System.nanoTime() - s.atNanos();
        if (age < MAX_AGE.toNanos()) {
            return CompletableFuture.completedFuture(s.health());
        }
        CompletableFuture<ShimHealth> f = refresh();
        if (age < MAX_STALE.toNanos()) {
            return CompletableFuture.completedFuture(s.health()); // asked anew meanwhile
        }
        return f.isDone() ? f : f.copy().completeOnTimeout(noAnswer(), timeout.plus(GRACE).toMillis(), TimeUnit.MILLISECONDS);
    }

    /** {@link #current()}, waited for. */
    ShimHealth get() {
        try {
            return current().get();
        } catch (ExecutionException e) {
            return new ShimHealth.Malformed("asking " + shim + " failed: " + e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new ShimHealth.Malformed("interrupted");
        }
    }

    /**
     * What was wrong with the shim's latest health answer, for /healthz: it did not come, could not
     * be used, or the shim was not reachable; null when it was usable or none was asked for yet.
     * dstack then sees nhc's verdict without DCGM's, which the daemon's operator should know.
     */
    String problem() {
        Stamped s = latest;
        if (s == null) {
            return null;
        }
        String why = null;
        if (s.health() instanceof ShimHealth.Malformed m) {
            why = "dstack-shim's health answer is unusable (" + m.why() + ")";
        } else if (s.health() instanceof ShimHealth.Down d) {
            why = d.why();
        } else if (s.health() instanceof ShimHealth.Answer a && HealthMerge.shimProblem(a.body()) != null) {
            why = "dstack-shim's health answer is unusable (" + HealthMerge.shimProblem(a.body()) + ")";
        }
        if (why == null) {
            return null;
        }
        long ago = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - s.atNanos());
        return why + " at the latest health poll (" + ago + " s ago): dstack sees nhc's verdict without DCGM's";
    }

    private ShimHealth noAnswer() {
        return new ShimHealth.Malformed("no answer from " + shim + " within " + timeout.toMillis() + " ms");
    }

    private CompletableFuture<ShimHealth> refresh() {
        CompletableFuture<ShimHealth> f;
        synchronized (this) {
            if (inFlight != null) {
                return inFlight;
            }
            f = new CompletableFuture<>();
            inFlight = f;
        }
        CompletableFuture<ShimHealth> asked;
        try {
            asked = ask();
        } catch (RuntimeException e) {
            // Not even asked (a request the HTTP client refuses): this refresh is over, or no later one would start.
            asked = CompletableFuture.failedFuture(e);
        }
        asked.whenComplete((health, error) -> {
            ShimHealth h = health != null ? health : new ShimHealth.Malformed("asking " + shim + " failed: " + error);
            latest = new Stamped(h, System.nanoTime());
            synchronized (this) {
                inFlight = null;
            }
            f.complete(h);
        });
        return f;
    }

    private CompletableFuture<ShimHealth> ask() {
        HttpRequest req = HttpRequest.newBuilder(uri).timeout(timeout).header("Accept", "application/json").GET().build();
        Limited body = new Limited(maxBytes);
        CompletableFuture<HttpResponse<byte[]>> call = client.sendAsync(req, info -> body);
        return call.orTimeout(timeout.plus(GRACE).toMillis(), TimeUnit.MILLISECONDS)
                .handle((r, error) -> {
                    if (error == null) {
                        return fromAnswer(r);
                    }
                    body.cancel(); // a body that stalled after the headers: let the connection go
                    Throwable e = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
                    if (e instanceof HttpTimeoutException && !(e instanceof HttpConnectTimeoutException) || e instanceof TimeoutException) {
                        return noAnswer();
                    }
                    return fromError(e);
                });
    }

    private ShimHealth fromAnswer(HttpResponse<byte[]> r) {
        if (r.statusCode() != 200) {
            return new ShimHealth.Malformed("HTTP " + r.statusCode());
        }
        Object parsed;
        try {
            parsed = JSON.std.anyFrom(r.body());
        } catch (IOException e) {
            return new ShimHealth.Malformed("not JSON: " + firstLine(e.getMessage()));
        }
        if (!(parsed instanceof Map<?, ?> m)) {
            return new ShimHealth.Malformed("not a JSON object");
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> map = (Map<String, Object>) m;
        return new ShimHealth.Answer(map);
    }

    private ShimHealth fromError(Throwable e) {
        if (e instanceof TooLarge) {
            return new ShimHealth.Malformed("answer larger than " + maxBytes + " bytes");
        }
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof ConnectException || t instanceof HttpConnectTimeoutException) {
                return new ShimHealth.Down("dstack-shim at " + shim + " is not reachable");
            }
        }
        return new ShimHealth.Malformed("reading from " + shim + " failed: " + firstLine(String.valueOf(e.getMessage())));
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "";
        }
        int nl = s.indexOf('\n');
        return (nl < 0 ? s : s.substring(0, nl)).trim();
    }

    /** The shim's answer ended up larger than the proxy keeps. */
    private static final class TooLarge extends IOException {
        private static final long serialVersionUID = 1L;

        TooLarge() {
            super("too large", null);
        }
    }

    /** Collects a body up to a size, and can give the connection up from outside. */
    private static final class Limited implements HttpResponse.BodySubscriber<byte[]> {
        private final int max;
        private final CompletableFuture<byte[]> result = new CompletableFuture<>();
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        private volatile Flow.Subscription subscription;

        Limited(int max) {
            this.max = max;
        }

        @Override
        public CompletionStage<byte[]> getBody() {
            return result;
        }

        @Override
        public void onSubscribe(Flow.Subscription s) {
            subscription = s;
            if (result.isDone()) {
                s.cancel();
            } else {
                s.request(Long.MAX_VALUE);
            }
        }

        @Override
        public void onNext(List<ByteBuffer> items) {
            for (ByteBuffer b : items) {
                if (bytes.size() + b.remaining() > max) {
                    result.completeExceptionally(new TooLarge());
                    cancel();
                    return;
                }
                byte[] chunk = new byte[b.remaining()];
                b.get(chunk);
                bytes.write(chunk, 0, chunk.length);
            }
        }

        @Override
        public void onError(Throwable t) {
            result.completeExceptionally(t);
        }

        @Override
        public void onComplete() {
            result.complete(bytes.toByteArray());
        }

        void cancel() {
            Flow.Subscription s = subscription;
            if (s != null) {
                s.cancel();
            }
            result.completeExceptionally(new TimeoutException("given up"));
        }
    }
}
