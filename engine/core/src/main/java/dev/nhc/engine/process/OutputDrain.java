package dev.nhc.engine.process;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/** Reads one stream to its end on a daemon thread: keeps up to the cap, discards the rest. */
final class OutputDrain implements Runnable {
    private final InputStream in;
    private final int cap;
    private final Consumer<String> lines;
    private final ByteArrayOutputStream kept = new ByteArrayOutputStream();
    private final ByteArrayOutputStream partial = new ByteArrayOutputStream();
    private final Thread thread;
    private volatile boolean stopped;
    private boolean truncated;
    private long total;

    OutputDrain(InputStream in, int cap, Consumer<String> lines, String name, ThreadFactory threads) {
        this.in = in;
        this.cap = cap;
        this.lines = lines;
        this.thread = threads.newThread(this);
        thread.setName("nhc-drain " + name);
        thread.start();
    }

    @Override
    public void run() {
        byte[] buf = new byte[8192];
        try (in) {
            int n;
            while ((n = in.read(buf)) > 0) {
                synchronized (this) {
                    total += n;
                }
                if (lines != null) {
                    deliver(buf, n);
                } else {
                    keep(buf, n);
                }
            }
            if (lines != null && partial.size() > 0 && !stopped) {
                lines.accept(partial.toString(StandardCharsets.UTF_8));
            }
        } catch (IOException ignored) {
            // The stream closes when the process is killed; what was read so far is kept.
        }
    }

    private synchronized void keep(byte[] buf, int n) {
        int room = cap - kept.size();
        if (room >= n) {
            kept.write(buf, 0, n);
        } else {
            if (room > 0) {
                kept.write(buf, 0, room);
            }
            truncated = true;
        }
    }

    /** Line mode: the cap applies per line; an absurdly long line keeps its head. */
    private void deliver(byte[] buf, int n) {
        int start = 0;
        for (int i = 0; i < n; i++) {
            if (buf[i] == '\n') {
                append(buf, start, i - start);
                if (!stopped) {
                    lines.accept(partial.toString(StandardCharsets.UTF_8));
                }
                partial.reset();
                start = i + 1;
            }
        }
        append(buf, start, n - start);
    }

    private void append(byte[] buf, int off, int len) {
        int room = cap - partial.size();
        if (len <= room) {
            partial.write(buf, off, len);
        } else {
            if (room > 0) {
                partial.write(buf, off, room);
            }
            synchronized (this) {
                truncated = true;
            }
        }
    }

    boolean await(long nanos) {
        try {
            thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(nanos)));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return !thread.isAlive();
    }

    /** After this, a reader still blocked (a grandchild nhc could not see holds the pipe) delivers nothing more. */
    void stop() {
        stopped = true;
    }

    synchronized String text() {
        return kept.toString(StandardCharsets.UTF_8);
    }

    synchronized boolean truncated() {
        return truncated;
    }

    synchronized long total() {
        return total;
    }
}
