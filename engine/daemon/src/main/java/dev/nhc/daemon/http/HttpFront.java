package dev.nhc.daemon.http;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;

/**
 * The daemon's listening side for HTTP (its own endpoints, and dstack's shim proxy): one thread with
 * a selector reads each connection's request head and answers the routes it knows from memory
 * ({@link Routes}), without a thread per connection; with a server behind it, a connection that
 * asks anything else is relayed byte for byte, from that request on (bodies, chunking, keep-alive
 * are then that server's business).
 *
 * <p>Why not the JDK's {@code com.sun.net.httpserver} in front: bursts of connections leaked its file
 * descriptors for good (a rejected exchange's connection is never closed), a client that sends its
 * head slowly holds one of its threads until {@code maxReqTime}, it has no limit per client nor a way
 * to keep its health routes answering when it is full, and a reset connection made the Prometheus
 * handler on it log a stack trace. Netty or Jetty would do this and much more, at several MiB of
 * classes in a daemon that must stay under 96 MB; this is the one piece nhc keeps for it.
 *
 * <p>What clients cannot do ({@link FrontLimits}): take longer than {@code head} to send a request head
 * once started (then 408 and close), idle between requests longer than {@code idle}, take longer
 * than {@code write} to read an answer (then reset), hold more than {@code maxConnections}
 * connections, or more than {@code perClient} from one address. At either limit the connection that
 * has waited longest without a request in progress (idle, or a head still coming) is closed to make
 * room, so a client holding idle connections cannot keep a health poll out; only when every
 * connection has a request in progress is the new one refused (503). At most {@code maxRelayed}
 * connections are relayed (each holds two buffers of {@link #RELAY_BUFFER} bytes). A head buffer
 * starts at {@link #HEAD_START} bytes and grows only while a head is long; all of them together
 * hold at most {@code headBudget} bytes (past that, 503). Pipelined requests are answered in order.
 * Each bad connection (reset, cut off, refused) is one log line at most, rate-limited
 * ({@link BadConnectionLog}), never a stack trace.
 *
 * <p>An error the loop cannot handle ends the connection it came from; one outside any connection
 * closes every connection and the loop goes on; the third within a minute stops the loop, and
 * {@code fatal} is told (the daemon then exits, and systemd starts it again: a live process whose
 * endpoint is dead would look healthy to nobody but itself).
 */
public final class HttpFront implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(HttpFront.class);

    public static final int HEAD_MAX = 16 * 1024;
    /** A head buffer's first size: a health poll's head is a few hundred bytes. */
    public static final int HEAD_START = 1024;
    public static final int RELAY_BUFFER = 16 * 1024;
    /** Errors outside any connection within {@link #FAILURE_WINDOW_NANOS} after which the loop gives up. */
    private static final int MAX_LOOP_FAILURES = 3;
    private static final long FAILURE_WINDOW_NANOS = 60_000_000_000L;
    private static final int BACKLOG = 1024;
    /** Connections taken from the backlog per round of the loop; the rest wait in it for the next round. */
    private static final int ACCEPTS_PER_ROUND = 64;
    static final long SWEEP_NANOS = 100_000_000L;
    private static final DateTimeFormatter HTTP_DATE = DateTimeFormatter.RFC_1123_DATE_TIME.withZone(ZoneOffset.UTC);

    /** What the front answers itself. */
    @FunctionalInterface
    public interface Routes {
        /**
         * The answer to this request (a future when it is made elsewhere), or null: relay the
         * connection to the server behind (without one: 404). Called on the loop thread: quick.
         */
        CompletableFuture<HttpAnswer> answer(RequestHead head);
    }

    /** One client address: its connections, and those of them waiting without a request in progress, oldest first. */
    static final class Client {
        int connections;
        final LinkedHashSet<FrontConnection> waiting = new LinkedHashSet<>();
    }

    final String name;
    private final ServerSocketChannel listener;
    final Selector selector;
    final InetSocketAddress backend;
    final Routes routes;
    final FrontLimits limits;
    final BadConnectionLog bad;
    private final Consumer<String> fatal;
    private final Thread loop;
    private final SelectionKey listenerKey;
    /** When accepting failed (out of file descriptors): accepting pauses until then instead of spinning. */
    private long acceptPausedUntil;
    /** Touched by the loop thread only. */
    final Set<FrontConnection> conns = new HashSet<>();
    /** Connections without a request in progress, the one that has waited longest first. */
    final LinkedHashSet<FrontConnection> waiting = new LinkedHashSet<>();
    final Map<InetAddress, Client> clients = new HashMap<>();
    /** Work for the loop thread from other threads (an answer that came later). */
    final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private volatile boolean stopping;
    int relayed;
    /** The capacity of every connection's head buffer, together; at most {@code limits.headBudget()}. */
    long headBytes;
    private int loopFailures;
    private long firstLoopFailure;
    /** Why the loop stopped while it should run, or null. */
    private volatile String failure;
    private long dateSecond = -1;
    private String date;

    /**
     * @param name    what the log calls it ("status endpoints", "dstack proxy")
     * @param backend the server behind, or null: then the routes answer everything
     * @param fatal   told why, once, when the loop stopped on its own
     */
    public HttpFront(String name, InetSocketAddress listen, InetSocketAddress backend, Routes routes, FrontLimits limits,
                     Consumer<String> fatal) throws IOException {
        this.name = name;
        this.limits = limits;
        this.backend = backend;
        this.routes = routes;
        this.fatal = fatal;
        this.bad = new BadConnectionLog(LOG::warn, name, System::nanoTime);
        this.selector = Selector.open();
        this.listener = ServerSocketChannel.open();
        try {
            listener.bind(listen, BACKLOG);
            listener.configureBlocking(false);
            this.listenerKey = listener.register(selector, SelectionKey.OP_ACCEPT);
        } catch (IOException e) {
            listener.close();
            selector.close();
            throw e;
        }
        this.loop = new Thread(this::run, "nhc-http-" + name.replace(' ', '-'));
        loop.setDaemon(true);
    }

    public HttpFront start() {
        loop.start();
        return this;
    }

    /** Why the loop stopped though nobody closed it (nothing is answered any more), or null while it runs. */
    public String failure() {
        return failure;
    }

    /** Bad connections so far: reset, cut off at a deadline, refused or closed at a limit. */
    public long badConnections() {
        return bad.count();
    }

    /** Runs {@code r} on the loop thread (what it throws is an error outside any connection). */
    public void execute(Runnable r) {
        tasks.add(r);
        selector.wakeup();
    }

    public InetSocketAddress address() {
        return (InetSocketAddress) listener.socket().getLocalSocketAddress();
    }

    @Override
    public void close() {
        stopping = true;
        selector.wakeup();
        try {
            loop.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void run() {
        try {
            loop();
        } catch (Throwable t) {
            failure = "the " + name + " listener stopped after an internal error (" + t + ")";
            LOG.error("{}: {}", name, failure);
            fatal.accept(failure);
        } finally {
            for (FrontConnection c : new ArrayList<>(conns)) {
                c.close();
            }
            try {
                listener.close();
                selector.close();
            } catch (IOException ignored) {
                // shutting down
            }
        }
    }

    private void loop() {
        long lastSweep = System.nanoTime();
        while (!stopping) {
            try {
                selector.select(SWEEP_NANOS / 1_000_000);
                Runnable task;
                while ((task = tasks.poll()) != null) {
                    task.run();
                }
                boolean acceptable = false;
                Iterator<SelectionKey> it = selector.selectedKeys().iterator();
                while (it.hasNext()) {
                    SelectionKey k = it.next();
                    it.remove();
                    if (!k.isValid()) {
                        continue;
                    }
                    if (k.channel() == listener) {
                        acceptable = true;
                        continue;
                    }
                    FrontConnection c = (FrontConnection) k.attachment();
                    try {
                        c.ready(k);
                    } catch (IOException | RuntimeException e) {
                        bad.bad(c.peer() + ": " + e.getMessage());
                        c.abort();
                    } catch (Error e) {
                        // A StackOverflowError, say: ending this connection frees what it held.
                        bad.bad(c.peer() + ": " + e);
                        c.abort();
                    }
                }
                // New connections only after what the connections we hold sent has been read, and only so many
                // a round: a poll whose head has come is answered before a flood of connects can make room by closing it.
                if (acceptable) {
                    try {
                        accept();
                    } catch (IOException e) {
                        // Out of file descriptors, say: the connection stays queued and would wake us at once again.
                        bad.bad("cannot accept a connection (" + e.getMessage() + "); pausing accepts for a moment");
                        listenerKey.interestOps(0);
                        acceptPausedUntil = System.nanoTime() + SWEEP_NANOS;
                    }
                }
                long now = System.nanoTime();
                if (now - lastSweep > SWEEP_NANOS) {
                    sweep(now);
                    lastSweep = now;
                }
            } catch (IOException | RuntimeException e) {
                LOG.warn("{}: {}", name, e.toString());
            } catch (Error e) {
                loopError(e);
            }
        }
    }

    /**
     * An error outside any connection: every connection is closed, which frees what they held, and
     * the loop goes on; the third within a minute ends it, as a loop that keeps failing would only spin.
     */
    private void loopError(Error e) {
        long now = System.nanoTime();
        if (loopFailures == 0 || now - firstLoopFailure > FAILURE_WINDOW_NANOS) {
            loopFailures = 0;
            firstLoopFailure = now;
        }
        if (++loopFailures >= MAX_LOOP_FAILURES) {
            throw e;
        }
        LOG.error("{}: {}; closing all {} connections and going on", name, e.toString(), conns.size());
        for (FrontConnection c : new ArrayList<>(conns)) {
            c.abort();
        }
    }

    private void accept() throws IOException {
        SocketChannel ch;
        for (int n = 0; n < ACCEPTS_PER_ROUND && (ch = listener.accept()) != null; n++) {
            try {
                admit(ch);
            } catch (IOException e) {
                // Reset before it was set up: only this connection is lost (accepting goes on).
                bad.bad("a connection was lost as it was accepted (" + e.getMessage() + ")");
                try {
                    ch.close();
                } catch (IOException ignored) {
                    // nothing more to do with it
                }
            }
        }
    }

    /** Takes a new connection in, making room or refusing it at a limit. */
    private void admit(SocketChannel ch) throws IOException {
        InetAddress from = ((InetSocketAddress) ch.getRemoteAddress()).getAddress();
        ch.configureBlocking(false);
        ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
        Client client = clients.computeIfAbsent(from, a -> new Client());
        if (client.connections >= limits.perClient() && !evictOldest(client.waiting, "connections from " + from.getHostAddress(),
                limits.perClient())) {
            refuse(ch, from, "already " + client.connections + " connections from it, each with a request in progress");
            dropIfUnused(from, client);
            return;
        }
        if (conns.size() >= limits.maxConnections() && !evictOldest(waiting, "connections", limits.maxConnections())) {
            refuse(ch, from, "already " + conns.size() + " connections, each with a request in progress");
            dropIfUnused(from, client);
            return;
        }
        FrontConnection c = new FrontConnection(this, ch, from, client);
        c.clientKey = ch.register(selector, SelectionKey.OP_READ, c);
        conns.add(c);
        client.connections++;
        headBytes += c.in.capacity();
        waiting(c);
    }

    /** Closes the connection of {@code among} that has waited longest, to make room; false when none waits. */
    private boolean evictOldest(LinkedHashSet<FrontConnection> among, String what, int limit) {
        Iterator<FrontConnection> it = among.iterator();
        if (!it.hasNext()) {
            return false;
        }
        FrontConnection oldest = it.next();
        bad.bad(oldest.peer() + ": closed without a request in progress to make room (at the limit of " + limit + " " + what + ")");
        oldest.close();
        return true;
    }

    private void refuse(SocketChannel ch, InetAddress from, String why) {
        bad.bad(from.getHostAddress() + ": refused, " + why);
        try {
            ch.write(ByteBuffer.wrap(("HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nRetry-After: 1\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1)));
        } catch (IOException ignored) {
            // it is closed next anyway
        }
        try {
            ch.close();
        } catch (IOException ignored) {
            // nothing more to do with it
        }
    }

    private void dropIfUnused(InetAddress from, Client client) {
        if (client.connections == 0) {
            clients.remove(from);
        }
    }

    /** The connection waits without a request in progress from now on: the newest of those. */
    void waiting(FrontConnection c) {
        waiting.remove(c);
        waiting.add(c);
        c.owner.waiting.remove(c);
        c.owner.waiting.add(c);
    }

    /** The connection has a request in progress (or is gone): never closed to make room. */
    void busy(FrontConnection c) {
        waiting.remove(c);
        c.owner.waiting.remove(c);
    }

    /** Called by a connection as it closes. */
    void closed(FrontConnection c) {
        busy(c);
        conns.remove(c);
        if (--c.owner.connections <= 0) {
            clients.remove(c.from);
        }
    }

    /** Ends connections past their deadlines. */
    private void sweep(long now) {
        if (acceptPausedUntil != 0 && now - acceptPausedUntil >= 0) {
            acceptPausedUntil = 0;
            listenerKey.interestOps(SelectionKey.OP_ACCEPT);
        }
        for (FrontConnection c : new ArrayList<>(conns)) {
            c.sweep(now);
        }
    }

    String date() {
        long second = System.currentTimeMillis() / 1000;
        if (second != dateSecond) {
            dateSecond = second;
            date = HTTP_DATE.format(Instant.ofEpochSecond(second));
        }
        return date;
    }

    /** Where the head's blank line starts ({@code \r\n\r\n}), or -1. */
    static int headEnd(byte[] b, int len) {
        for (int i = 3; i < len; i++) {
            if (b[i] == '\n' && b[i - 1] == '\r' && b[i - 2] == '\n' && b[i - 3] == '\r') {
                return i - 3;
            }
        }
        return -1;
    }
}
