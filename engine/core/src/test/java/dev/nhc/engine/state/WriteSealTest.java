package dev.nhc.engine.state;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class WriteSealTest {
    /** Closing waits for the write going on (a temp file half renamed must not be left to a deleted directory), then lets none through. */
    @Test
    void closeWaitsForTheWriteGoingOnAndLetsNoneThroughAfter() throws Exception {
        WriteSeal seal = new WriteSeal();
        CountDownLatch writing = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        CompletableFuture<Void> write = CompletableFuture.runAsync(() -> {
            try {
                seal.write(() -> {
                    writing.countDown();
                    try {
                        finish.await();
                    } catch (InterruptedException e) {
                        throw new java.io.InterruptedIOException();
                    }
                });
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        writing.await();
        Thread closer = new Thread(seal::close, "closer");
        closer.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> closer.getState() == Thread.State.WAITING);
        assertTrue(closer.isAlive(), "close returned while a write was going on");
        finish.countDown();
        closer.join(10_000);
        assertFalse(closer.isAlive());
        write.get();
        AtomicBoolean ran = new AtomicBoolean();
        seal.write(() -> ran.set(true));
        assertFalse(ran.get(), "a write after close");
    }
}
