package dev.nhc.daemon;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A one-line request, one answer, then close — over a listening socket, for the verdict socket:
 * one thread with a selector reads every client's line, so clients that connect and send nothing
 * hold no thread; a complete line is answered on the {@code answers} pool and the answer written
 * back without blocking. Each connection has {@code limitMs} from accept to its last byte written;
 * past {@code maxConnections} the one that has waited longest for its line is closed to make room
 * (bin/nhc-slurm sends its line at once, so idle clients cannot keep it out).
 */
final class LineServer implements AutoCloseable {
    static final int MAX_REQUEST = 4096;

    private final ServerSocketChannel server;
    private final Selector selector;
    private final Function<String, byte[]> answer;
    private final ExecutorService answers;
    private final long limitNanos;
    private final int maxConnections;
    private final Consumer<String> fatal;
    private final Thread loop;
    /** Connections still sending their line, oldest first; touched by the loop thread only. */
    private final LinkedHashSet<Conn> reading = new LinkedHashSet<>();
    private final LinkedHashSet<Conn> all = new LinkedHashSet<>();
    private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private volatile boolean closed;

    LineServer(ServerSocketChannel server, Function<String, byte[]> answer, ExecutorService answers, long limitMs, int maxConnections,
               Consumer<String> fatal) throws IOException {
        this.server = server;
        this.answer = answer;
        this.answers = answers;
        this.limitNanos = limitMs * 1_000_000;
        this.maxConnections = maxConnections;
        this.fatal = fatal;
        this.selector = Selector.open();
        server.configureBlocking(false);
        server.register(selector, SelectionKey.OP_ACCEPT);
        this.loop = new Thread(this::run, "nhc-socket");
        loop.setDaemon(true);
    }

    LineServer start() {
        loop.start();
        return this;
    }

    private final class Conn {
        final SocketChannel ch;
        final SelectionKey key;
        final long since = System.nanoTime();
        final ByteBuffer in = ByteBuffer.allocate(MAX_REQUEST);
        ByteBuffer out;

        Conn(SocketChannel ch) throws IOException {
            this.ch = ch;
            ch.configureBlocking(false);
            this.key = ch.register(selector, SelectionKey.OP_READ, this);
        }

        void readable() throws IOException {
            int n = ch.read(in);
            String line = line(n < 0 || !in.hasRemaining());
            if (line == null) {
                return;
            }
            reading.remove(this);
            key.interestOps(0);
            try {
                answers.execute(() -> {
                    byte[] a = answer.apply(line);
                    tasks.add(() -> write(a));
                    selector.wakeup();
                });
            } catch (RejectedExecutionException busy) {
                close(); // the client falls back to a run of its own
            }
        }

        /** The request line once complete (or all there is, at its end), else null. */
        private String line(boolean ended) {
            for (int i = 0; i < in.position(); i++) {
                if (in.get(i) == '\n') {
                    return new String(in.array(), 0, i, StandardCharsets.UTF_8);
                }
            }
            return ended ? new String(in.array(), 0, in.position(), StandardCharsets.UTF_8).strip() : null;
        }

        void write(byte[] a) {
            if (!ch.isOpen()) {
                return;
            }
            out = ByteBuffer.wrap(a);
            writable();
        }

        void writable() {
            try {
                ch.write(out);
                if (out.hasRemaining()) {
                    key.interestOps(SelectionKey.OP_WRITE);
                } else {
                    close();
                }
            } catch (IOException e) {
                close();
            }
        }

        void close() {
            reading.remove(this);
            all.remove(this);
            key.cancel();
            try {
                ch.close();
            } catch (IOException ignored) {
                // already closed
            }
        }
    }

    private void run() {
        try {
            while (!closed) {
                selector.select(100);
                Runnable t;
                while ((t = tasks.poll()) != null) {
                    t.run();
                }
                Iterator<SelectionKey> it = selector.selectedKeys().iterator();
                while (it.hasNext()) {
                    SelectionKey k = it.next();
                    it.remove();
                    if (!k.isValid()) {
                        continue;
                    }
                    if (k.isAcceptable()) {
                        accept();
                        continue;
                    }
                    Conn c = (Conn) k.attachment();
                    try {
                        if (k.isReadable()) {
                            c.readable();
                        } else if (k.isWritable()) {
                            c.writable();
                        }
                    } catch (IOException | RuntimeException e) {
                        c.close(); // the client went away; it falls back to a run of its own
                    }
                }
                long now = System.nanoTime();
                for (Conn c : new ArrayList<>(all)) {
                    if (now - c.since > limitNanos) {
                        c.close();
                    }
                }
            }
        } catch (ClosedSelectorException e) {
            // closed
        } catch (IOException | RuntimeException | Error e) {
            if (!closed) {
                fatal.accept("the verdict socket's listener stopped (" + e + ")");
            }
        } finally {
            for (Conn c : new ArrayList<>(all)) {
                c.close();
            }
        }
    }

    private void accept() throws IOException {
        SocketChannel ch;
        while ((ch = server.accept()) != null) {
            if (all.size() >= maxConnections) {
                Iterator<Conn> oldest = reading.iterator();
                if (!oldest.hasNext()) {
                    ch.close(); // every connection is being answered: this client falls back
                    continue;
                }
                oldest.next().close();
            }
            Conn c = new Conn(ch);
            all.add(c);
            reading.add(c);
        }
    }

    @Override
    public void close() {
        closed = true;
        selector.wakeup();
        try {
            loop.join(2000);
            selector.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException ignored) {
            // closing anyway
        }
    }
}
