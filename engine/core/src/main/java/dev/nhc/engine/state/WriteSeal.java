package dev.nhc.engine.state;

import java.io.IOException;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * Lets a store's writes through until it is closed; closing waits for the writes going on, so that
 * once it returns nothing more reaches the disk. Writes of different sections go through together.
 */
final class WriteSeal {
    /** What is written, or deleted. */
    interface Write {
        void run() throws IOException;
    }

    private final ReadWriteLock lock = new ReentrantReadWriteLock();
    private boolean closed;

    /** Does {@code w} unless closed. */
    void write(Write w) throws IOException {
        lock.readLock().lock();
        try {
            if (!closed) {
                w.run();
            }
        } finally {
            lock.readLock().unlock();
        }
    }

    void close() {
        lock.writeLock().lock();
        try {
            closed = true;
        } finally {
            lock.writeLock().unlock();
        }
    }
}
