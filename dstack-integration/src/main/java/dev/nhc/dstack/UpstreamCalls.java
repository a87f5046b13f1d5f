package dev.nhc.dstack;

import dev.nhc.daemon.HostPort;

import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The pass-through requests in progress and how they fare. A watchdog gives up a response body
 * from the shim that stalls longer than the idle limit (the upstream stream is closed, so the
 * worker blocked reading it is freed), and {@link #problems} says when the shim is hanging: calls
 * that got nothing from it for longer than the hanging limit. Only the shim's time counts: while a
 * worker waits on the client (reading a slowly uploaded body, writing to a client that reads
 * slowly) the call is not stalled, and each step the client takes counts as progress.
 */
final class UpstreamCalls implements AutoCloseable {
    private final Set<Call> calls = ConcurrentHashMap.newKeySet();
    private final Duration idleLimit;
    private final Duration hangingAfter;
    private final ScheduledExecutorService watchdog;

    /** One pass-through request: when the shim last gave it something, and the stream to close if it stalls. */
    static final class Call {
        private volatile long progressNanos = System.nanoTime();
        private volatile InputStream upstream;
        private volatile boolean gaveUp;
        /** How many threads of this call are blocked on the client right now (a body upload and a response write may overlap). */
        private final java.util.concurrent.atomic.AtomicInteger onClient = new java.util.concurrent.atomic.AtomicInteger();

        void progress() {
            progressNanos = System.nanoTime();
        }

        /** A thread of this call starts waiting on the client: the shim is not to blame meanwhile. */
        void clientBegin() {
            onClient.incrementAndGet();
        }

        /** It is done waiting on the client; the shim's clock starts again from now. */
        void clientEnd() {
            progress();
            onClient.decrementAndGet();
        }

        /** The shim's response body, closed by the watchdog when it stalls. */
        void reading(InputStream in) {
            upstream = in;
            progress();
        }

        /** Whether the watchdog closed the upstream stream (so a read failure means "stalled", not "reset"). */
        boolean gaveUp() {
            return gaveUp;
        }

        long idleNanos(long now) {
            return onClient.get() > 0 ? 0 : now - progressNanos;
        }
    }

    UpstreamCalls(Duration idleLimit, Duration hangingAfter) {
        this.idleLimit = idleLimit;
        this.hangingAfter = hangingAfter;
        this.watchdog = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "nhc-proxy-watchdog");
            t.setDaemon(true);
            return t;
        });
        long tick = Math.max(50, Math.min(1000, idleLimit.toMillis() / 4));
        watchdog.scheduleWithFixedDelay(this::giveUpStalled, tick, tick, TimeUnit.MILLISECONDS);
    }

    Call start() {
        Call c = new Call();
        calls.add(c);
        return c;
    }

    void end(Call c) {
        calls.remove(c);
    }

    int inProgress() {
        return calls.size();
    }

    /** How many calls have had nothing from the shim for longer than the hanging limit. */
    int hanging() {
        long now = System.nanoTime();
        int n = 0;
        for (Call c : calls) {
            if (c.idleNanos(now) > hangingAfter.toNanos()) {
                n++;
            }
        }
        return n;
    }

    private void giveUpStalled() {
        long now = System.nanoTime();
        for (Call c : calls) {
            InputStream in = c.upstream;
            if (in != null && !c.gaveUp && c.idleNanos(now) > idleLimit.toNanos()) {
                c.gaveUp = true;
                try {
                    in.close(); // wakes the worker blocked in read()
                } catch (IOException ignored) {
                    // closing is all that was wanted
                }
            }
        }
    }

    /** Sentences for /healthz, empty while calls are moving. */
    List<String> problems(HostPort shim) {
        List<String> out = new ArrayList<>();
        int hanging = hanging();
        if (hanging > 0) {
            out.add("dstack-shim at " + shim + " is hanging: " + hanging + " pass-through request" + (hanging == 1 ? " has" : "s have")
                    + " had no answer for more than " + ShimProxy.human(hangingAfter));
        }
        return out;
    }

    @Override
    public void close() {
        watchdog.shutdownNow();
    }
}
