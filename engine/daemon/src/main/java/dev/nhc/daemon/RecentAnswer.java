package dev.nhc.daemon;

import dev.nhc.daemon.http.HttpAnswer;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * The latest answer of one route, shared by every request for the same thing within
 * {@link #FRESH_NANOS}, even while it is still being made: a burst of a thousand scrapes costs one
 * scrape and holds one body, not a thousand. "The same thing": the same object (a verdict, by
 * identity: it is never changed, only replaced) and an equal key (the request's Accept headers).
 */
final class RecentAnswer {
    static final long FRESH_NANOS = 1_000_000_000L;

    private Object identity;
    private Object key;
    private long madeAt;
    private CompletableFuture<HttpAnswer> answer;

    synchronized CompletableFuture<HttpAnswer> get(Object identity, Object key, Supplier<CompletableFuture<HttpAnswer>> make) {
        long now = System.nanoTime();
        if (answer != null && identity == this.identity && Objects.equals(key, this.key) && now - madeAt < FRESH_NANOS
                && !answer.isCompletedExceptionally()) {
            return answer;
        }
        this.identity = identity;
        this.key = key;
        this.madeAt = now;
        this.answer = make.get();
        return answer;
    }
}
