package dev.nhc.dstack;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The proxy's listening side: one thread with a selector reads each connection's request head and
 * answers {@code GET /api/instance/health} itself, from memory, without a thread per connection;
 * a connection that asks anything else is relayed byte for byte, from that request on, to the
 * JDK HTTP server behind it (pass-through, and everything HTTP needs: bodies, chunking,
 * Expect: 100-continue, keep-alive). So a thousand health polls at once, or clients that send
 * their request slowly, cost no threads and never wait behind the shim.
 *
 * <p>Deadlines ({@link Deadlines}): a request head must be complete within {@link #HEAD_DEADLINE}
 * once it started (then 408 and close), a connection may idle between requests for
 * {@link #IDLE_LIMIT}, a health answer must be taken by the client within {@link #WRITE_DEADLINE}. At most
 * {@link #MAX_CONNECTIONS} connections, of which {@link #MAX_RELAYED} relayed (each holds two
 * buffers of {@link #RELAY_BUFFER} bytes); past that a connection is refused with 503. When the
 * server behind breaks a relayed connection off, the client's is reset, so a response cut short is
 * never passed off as whole.
 *
 * <p>Memory: the daemon's heap is small (-Xmx64m), so what clients can make this hold is bounded.
 * A head buffer starts at {@link #HEAD_START} bytes and grows only while a head is long; all head
 * buffers together hold at most {@link #HEAD_BUDGET} bytes, past that a connection whose head
 * needs more is refused with 503 (4096 clients sending 15 KB of head each would otherwise hold
 * 64 MiB). Relayed connections hold at most {@link #MAX_RELAYED} × 2 × {@link #RELAY_BUFFER}
 * (16 MiB). An error the loop cannot handle (an OutOfMemoryError, say) ends the connection it came
 * from; one outside any connection closes every connection and the loop goes on, and if that keeps
 * happening the loop stops and {@link #failure()} says so (the daemon's /healthz then answers 503).
 */
final class ProxyFront implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ProxyFront.class);

    static final int HEAD_MAX = 16 * 1024;
    /** A head buffer's first size: a health poll's head is a few hundred bytes. */
    static final int HEAD_START = 1024;
    /** All head buffers together: 4096 connections at {@link #HEAD_START}, and 4 MiB for long heads. */
    static final int HEAD_BUDGET = 8 * 1024 * 1024;
    /** Errors outside any connection within {@link #FAILURE_WINDOW_NANOS} after which the loop gives up. */
    private static final int MAX_LOOP_FAILURES = 3;
    private static final long FAILURE_WINDOW_NANOS = 60_000_000_000L;
    static final Duration HEAD_DEADLINE = Duration.ofSeconds(10);
    static final Duration IDLE_LIMIT = Duration.ofSeconds(30);
    static final Duration WRITE_DEADLINE = Duration.ofSeconds(10);
    static final int MAX_CONNECTIONS = 4096;
    static final int MAX_RELAYED = 512;
    static final int RELAY_BUFFER = 16 * 1024;
    private static final int BACKLOG = 1024;
    private static final long SWEEP_NANOS = 100_000_000L;
    private static final DateTimeFormatter HTTP_DATE = DateTimeFormatter.RFC_1123_DATE_TIME.withZone(ZoneOffset.UTC);

    /** How long a request head may take, a connection idle, a client take to read its answer. */
    record Deadlines(Duration head, Duration idle, Duration write) {
        static final Deadlines DEFAULT = new Deadlines(HEAD_DEADLINE, IDLE_LIMIT, WRITE_DEADLINE);
    }

    /** The health route's answer, a JSON body; already complete when it is in memory. */
    interface Health {
        CompletableFuture<byte[]> answer();
    }

    private enum State { IDLE, HEAD, ANSWER, WRITE, RELAY, CLOSED }

    private final ServerSocketChannel listener;
    private final Selector selector;
    private final InetSocketAddress backend;
    private final String healthPath;
    private final Health health;
    private final Deadlines deadlines;
    private final Thread loop;
    private final SelectionKey listenerKey;
    /** When accepting failed (out of file descriptors): accepting pauses until then instead of spinning. */
    private long acceptPausedUntil;
    /** Touched by the loop thread only. */
    private final Set<Conn> conns = new HashSet<>();
    /** Work for the loop thread from other threads (a health answer that came later). */
    private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private volatile boolean stopping;
    private int relayed;
    /** The capacity of every connection's head buffer, together; at most {@link #headBudget}. */
    private long headBytes;
    private final long headBudget;
    private int loopFailures;
    private long firstLoopFailure;
    /** Why the loop stopped while it should run, or null. */
    private volatile String failure;
    private long dateSecond = -1;
    private String date;

    ProxyFront(InetSocketAddress listen, InetSocketAddress backend, String healthPath, Health health) throws IOException {
        this(listen, backend, healthPath, health, Deadlines.DEFAULT);
    }

    ProxyFront(InetSocketAddress listen, InetSocketAddress backend, String healthPath, Health health, Deadlines deadlines)
            throws IOException {
        this(listen, backend, healthPath, health, deadlines, HEAD_BUDGET);
    }

    ProxyFront(InetSocketAddress listen, InetSocketAddress backend, String healthPath, Health health, Deadlines deadlines,
               long headBudget) throws IOException {
        this.headBudget = headBudget;
        this.deadlines = deadlines;
        this.backend = backend;
        this.healthPath = healthPath;
        this.health = health;
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
        this.loop = new Thread(this::run, "nhc-proxy-front");
        loop.setDaemon(true);
    }

    ProxyFront start() {
        loop.start();
        return this;
    }

    /** Why the loop stopped though nobody closed it (nothing is answered any more), or null while it runs. */
    String failure() {
        return failure;
    }

    /** Runs {@code r} on the loop thread (what it throws is an error outside any connection). */
    void execute(Runnable r) {
        tasks.add(r);
        selector.wakeup();
    }

    InetSocketAddress address() {
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
            failed(t);
        } finally {
            for (Conn c : new ArrayList<>(conns)) {
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

    private void failed(Throwable t) {
        failure = "the dstack proxy's listener stopped after an internal error (" + t + "); restart nhc-daemon";
        LOG.error("proxy front: {}", failure, t);
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
                Iterator<SelectionKey> it = selector.selectedKeys().iterator();
                while (it.hasNext()) {
                    SelectionKey k = it.next();
                    it.remove();
                    if (!k.isValid()) {
                        continue;
                    }
                    if (k.channel() == listener) {
                        try {
                            accept();
                        } catch (IOException e) {
                            // Out of file descriptors, say: the connection stays queued and would wake us at once again.
                            LOG.warn("proxy: cannot accept a connection ({}); pausing accepts for a moment", e.toString());
                            listenerKey.interestOps(0);
                            acceptPausedUntil = System.nanoTime() + SWEEP_NANOS;
                        }
                        continue;
                    }
                    Conn c = (Conn) k.attachment();
                    try {
                        c.ready(k);
                    } catch (IOException | RuntimeException e) {
                        LOG.debug("proxy connection: {}", e.toString());
                        c.abort();
                    } catch (Error e) {
                        // Out of memory, say: ending this connection frees what it held.
                        LOG.warn("proxy connection: {}", e.toString());
                        c.abort();
                    }
                }
                long now = System.nanoTime();
                if (now - lastSweep > SWEEP_NANOS) {
                    sweep(now);
                    lastSweep = now;
                }
            } catch (IOException | RuntimeException e) {
                LOG.warn("proxy front: {}", e.toString());
            } catch (Error e) {
                loopError(e);
            }
        }
    }

    /**
     * An error outside any connection: every connection is closed, which frees what they held, and
     * the loop goes on; the third within a minute ends it ({@link #failure()}), as a loop that keeps
     * failing would only spin.
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
        LOG.error("proxy front: {}; closing all {} connections and going on", e.toString(), conns.size());
        for (Conn c : new ArrayList<>(conns)) {
            c.abort();
        }
    }

    private void accept() throws IOException {
        SocketChannel ch;
        while ((ch = listener.accept()) != null) {
            if (conns.size() >= MAX_CONNECTIONS) {
                ch.close();
                continue;
            }
            ch.configureBlocking(false);
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            Conn c = new Conn(ch);
            c.clientKey = ch.register(selector, SelectionKey.OP_READ, c);
            conns.add(c);
            headBytes += c.in.capacity();
        }
    }

    /** Ends connections past their deadlines. */
    private void sweep(long now) {
        if (acceptPausedUntil != 0 && now - acceptPausedUntil >= 0) {
            acceptPausedUntil = 0;
            listenerKey.interestOps(SelectionKey.OP_ACCEPT);
        }
        for (Conn c : new ArrayList<>(conns)) {
            long in = now - c.since;
            if (c.state == State.IDLE && in > deadlines.idle().toNanos()) {
                c.close();
            } else if (c.state == State.HEAD && in > deadlines.head().toNanos()) {
                c.reject(408, "Request Timeout", "the request head did not arrive within " + ShimProxy.human(deadlines.head()));
            } else if (c.state == State.WRITE && in > deadlines.write().toNanos()) {
                c.abort();
            }
        }
    }

    /** The last health response sent, reused while body, date and connection header are the same. */
    private byte[] lastBody;
    private String lastDate;
    private boolean lastClose;
    private byte[] lastResponse;

    private byte[] response(byte[] body, boolean close) {
        String d = date();
        if (body != null && body == lastBody && d.equals(lastDate) && close == lastClose) {
            return lastResponse;
        }
        String status = body == null ? "500 Internal Server Error" : "200 OK";
        byte[] b = body != null ? body : "{\"error\":\"nhc proxy: no health answer\"}".getBytes(StandardCharsets.UTF_8);
        byte[] h = ("HTTP/1.1 " + status + "\r\nContent-Type: application/json\r\nContent-Length: " + b.length
                + "\r\nDate: " + d + "\r\n" + (close ? "Connection: close\r\n" : "") + "\r\n").getBytes(StandardCharsets.ISO_8859_1);
        byte[] r = new byte[h.length + b.length];
        System.arraycopy(h, 0, r, 0, h.length);
        System.arraycopy(b, 0, r, h.length, b.length);
        lastBody = body;
        lastDate = d;
        lastClose = close;
        lastResponse = r;
        return r;
    }

    private String date() {
        long second = System.currentTimeMillis() / 1000;
        if (second != dateSecond) {
            dateSecond = second;
            date = HTTP_DATE.format(Instant.ofEpochSecond(second));
        }
        return date;
    }

    /** One client connection: reading a head, answering health, or relayed. */
    private final class Conn {
        final SocketChannel client;
        SelectionKey clientKey;
        State state = State.IDLE;
        long since = System.nanoTime();
        /** The request head read so far (fill mode); small at first, a connection costs little. Counted in headBytes. */
        ByteBuffer in = ByteBuffer.allocate(HEAD_START);
        ByteBuffer out;
        boolean closeAfter;
        SocketChannel server;
        SelectionKey serverKey;
        /** Relay buffers, fill mode: client to server, server to client. */
        ByteBuffer up;
        ByteBuffer down;
        boolean clientDone;
        boolean serverDone;
        boolean serverShut;

        Conn(SocketChannel client) {
            this.client = client;
        }

        void ready(SelectionKey k) throws IOException {
            if (state == State.RELAY) {
                relayReady(k);
                return;
            }
            if (k.isWritable()) {
                writeOut();
            }
            if (k.isValid() && k.isReadable() && (state == State.IDLE || state == State.HEAD)) {
                readHead();
            }
        }

        private void readHead() throws IOException {
            if (!in.hasRemaining()) {
                if (in.capacity() >= HEAD_MAX) {
                    relay();
                    return;
                }
                int size = Math.min(HEAD_MAX, in.capacity() * 4);
                if (headBytes + size - in.capacity() > headBudget) {
                    reject(503, "Service Unavailable", "too many long request heads are being read at once");
                    return;
                }
                ByteBuffer bigger = ByteBuffer.allocate(size);
                headBytes += size - in.capacity();
                in.flip();
                bigger.put(in);
                in = bigger;
            }
            int n = client.read(in);
            if (n < 0) {
                close();
                return;
            }
            if (n > 0) {
                if (state == State.IDLE) {
                    state = State.HEAD;
                    since = System.nanoTime();
                }
                takeHead();
            }
        }

        /** Acts on a complete head in {@code in}, if there is one. */
        private void takeHead() throws IOException {
            int end = headEnd(in.array(), in.position());
            if (end < 0) {
                if (in.position() >= HEAD_MAX) {
                    relay(); // too long for nhc to judge: the JDK server answers it
                }
                return;
            }
            RequestHead h = RequestHead.parse(in.array(), end);
            if (h == null || !h.plain() || !"GET".equals(h.method()) || !healthPath.equals(h.path())) {
                relay();
                return;
            }
            int rest = in.position() - (end + 4);
            System.arraycopy(in.array(), end + 4, in.array(), 0, rest); // a pipelined next request stays
            in.position(rest);
            closeAfter = h.closeAfter();
            state = State.ANSWER;
            CompletableFuture<byte[]> f = health.answer();
            if (f.isDone()) {
                respond(f.getNow(null));
            } else {
                clientInterest(0);
                f.whenComplete((body, error) -> {
                    tasks.add(() -> respond(body));
                    selector.wakeup();
                });
            }
        }

        private void respond(byte[] body) {
            if (state != State.ANSWER) {
                return; // closed meanwhile
            }
            out = ByteBuffer.wrap(response(body, closeAfter));
            state = State.WRITE;
            since = System.nanoTime();
            try {
                writeOut();
            } catch (IOException | RuntimeException | Error e) {
                abort();
            }
        }

        private void writeOut() throws IOException {
            if (state != State.WRITE) {
                return;
            }
            client.write(out);
            if (out.hasRemaining()) {
                clientInterest(SelectionKey.OP_WRITE);
                return;
            }
            out = null;
            if (closeAfter) {
                close();
                return;
            }
            state = in.position() > 0 ? State.HEAD : State.IDLE;
            since = System.nanoTime();
            if (state == State.IDLE && in.capacity() > HEAD_START) {
                releaseHead(); // a long head is over: an idle connection holds little
                in = ByteBuffer.allocate(HEAD_START);
                headBytes += HEAD_START;
            }
            clientInterest(SelectionKey.OP_READ);
            if (state == State.HEAD) {
                takeHead();
            }
        }

        /** Sets the client's interest only when it changes (each change is a system call). */
        private void clientInterest(int ops) {
            if (clientKey.interestOps() != ops) {
                clientKey.interestOps(ops);
            }
        }

        /** Hands this connection, from the request read so far on, to the JDK server behind. */
        private void relay() throws IOException {
            if (relayed >= MAX_RELAYED) {
                reject(503, "Service Unavailable", "too many connections are being passed through");
                return;
            }
            state = State.RELAY;
            relayed++;
            in.flip();
            up = ByteBuffer.allocate(Math.max(RELAY_BUFFER, in.remaining())).put(in);
            releaseHead();
            down = ByteBuffer.allocate(RELAY_BUFFER);
            server = SocketChannel.open();
            server.configureBlocking(false);
            server.setOption(StandardSocketOptions.TCP_NODELAY, true);
            boolean connected = server.connect(backend);
            serverKey = server.register(selector, connected ? 0 : SelectionKey.OP_CONNECT, this);
            interest();
        }

        private void relayReady(SelectionKey k) throws IOException {
            if (k == serverKey) {
                if (k.isConnectable()) {
                    server.finishConnect();
                }
                if (k.isValid() && k.isReadable()) {
                    int n;
                    try {
                        n = server.read(down);
                    } catch (IOException e) {
                        abort(); // the server broke the connection: so does the client's
                        return;
                    }
                    if (n < 0) {
                        serverDone = true;
                    }
                }
            } else if (k.isReadable()) {
                if (client.read(up) < 0) {
                    clientDone = true;
                }
            }
            pump();
        }

        /** Moves what can be moved without blocking, then says what to wait for. */
        private void pump() throws IOException {
            if (server.isConnected() && up.position() > 0) {
                flush(up, server);
            }
            if (down.position() > 0) {
                flush(down, client);
            }
            if (serverDone && down.position() == 0) {
                close(); // the server ended the connection and all it sent was passed on
                return;
            }
            if (clientDone && up.position() == 0 && server.isConnected() && !serverShut) {
                server.shutdownOutput();
                serverShut = true;
            }
            interest();
        }

        private void flush(ByteBuffer b, SocketChannel to) throws IOException {
            b.flip();
            try {
                to.write(b);
            } finally {
                b.compact();
            }
        }

        private void interest() {
            if (!clientKey.isValid() || !serverKey.isValid()) {
                return;
            }
            int c = 0;
            if (!clientDone && up.hasRemaining()) {
                c |= SelectionKey.OP_READ;
            }
            if (down.position() > 0) {
                c |= SelectionKey.OP_WRITE;
            }
            clientKey.interestOps(c);
            int s;
            if (!server.isConnected()) {
                s = SelectionKey.OP_CONNECT;
            } else {
                s = 0;
                if (!serverDone && down.hasRemaining()) {
                    s |= SelectionKey.OP_READ;
                }
                if (up.position() > 0) {
                    s |= SelectionKey.OP_WRITE;
                }
            }
            serverKey.interestOps(s);
        }

        /** A short answer, written once without waiting, then the connection ends. */
        void reject(int code, String reason, String message) {
            byte[] body = ("{\"error\":\"nhc proxy: " + message + "\"}").getBytes(StandardCharsets.UTF_8);
            String head = "HTTP/1.1 " + code + " " + reason + "\r\nContent-Type: application/json\r\nContent-Length: " + body.length
                    + "\r\nDate: " + date() + "\r\nConnection: close\r\n\r\n";
            try {
                client.write(ByteBuffer.wrap((head + new String(body, StandardCharsets.UTF_8)).getBytes(StandardCharsets.UTF_8)));
            } catch (IOException ignored) {
                // it is being closed anyway
            }
            close();
        }

        /** Ends with a reset, so the client cannot take what it got for a whole answer. */
        void abort() {
            try {
                client.setOption(StandardSocketOptions.SO_LINGER, 0);
            } catch (IOException | RuntimeException ignored) {
                // closed already
            }
            close();
        }

        /** Gives the head buffer back to the budget. */
        private void releaseHead() {
            if (in != null) {
                headBytes -= in.capacity();
                in = null;
            }
        }

        void close() {
            if (state == State.CLOSED) {
                return;
            }
            if (state == State.RELAY) {
                relayed--;
            }
            state = State.CLOSED;
            releaseHead();
            conns.remove(this);
            closeQuietly(client);
            if (server != null) {
                closeQuietly(server);
            }
        }
    }

    private static void closeQuietly(SocketChannel ch) {
        try {
            ch.close();
        } catch (IOException ignored) {
            // nothing more to do with it
        }
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
