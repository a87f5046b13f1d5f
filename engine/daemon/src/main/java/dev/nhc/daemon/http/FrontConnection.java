package dev.nhc.daemon.http;

import java.io.IOException;
import java.net.InetAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * One client connection of an {@link HttpFront}: reading a head, waiting for an answer, writing it,
 * or relayed to the server behind. Touched by the front's loop thread only.
 */
final class FrontConnection {
    private enum State { IDLE, HEAD, ANSWER, WRITE, RELAY, CLOSED }

    private final HttpFront front;
    final SocketChannel client;
    final InetAddress from;
    final HttpFront.Client owner;
    SelectionKey clientKey;
    private State state = State.IDLE;
    private long since = System.nanoTime();
    /** The request head read so far (fill mode); small at first, a connection costs little. Counted in the front's headBytes. */
    ByteBuffer in = ByteBuffer.allocate(HttpFront.HEAD_START);
    private ByteBuffer[] out;
    private boolean closeAfter;
    private boolean headOnly;
    private SocketChannel server;
    private SelectionKey serverKey;
    /** Relay buffers, fill mode: client to server, server to client. */
    private ByteBuffer up;
    private ByteBuffer down;
    private boolean clientDone;
    private boolean serverDone;
    private boolean serverShut;

    FrontConnection(HttpFront front, SocketChannel client, InetAddress from, HttpFront.Client owner) {
        this.front = front;
        this.client = client;
        this.from = from;
        this.owner = owner;
    }

    String peer() {
        return from.getHostAddress();
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

    /** Ends this connection if it is past its deadline. */
    void sweep(long now) {
        long in = now - since;
        FrontLimits l = front.limits;
        if (state == State.IDLE && in > l.idle().toNanos()) {
            close();
        } else if (state == State.HEAD && in > l.head().toNanos()) {
            front.bad.bad(peer() + ": the request head did not arrive within " + human(l.head()) + " (408)");
            reject(408, "Request Timeout", "the request head did not arrive within " + human(l.head()));
        } else if (state == State.WRITE && in > l.write().toNanos()) {
            front.bad.bad(peer() + ": did not take its answer within " + human(l.write()) + "; reset");
            abort();
        }
    }

    private void readHead() throws IOException {
        if (!in.hasRemaining()) {
            if (in.capacity() >= HttpFront.HEAD_MAX) {
                tooLong();
                return;
            }
            int size = Math.min(HttpFront.HEAD_MAX, in.capacity() * 4);
            if (front.headBytes + size - in.capacity() > front.limits.headBudget()) {
                front.bad.bad(peer() + ": refused a long request head, too many are being read at once (503)");
                reject(503, "Service Unavailable", "too many long request heads are being read at once");
                return;
            }
            ByteBuffer bigger = ByteBuffer.allocate(size);
            front.headBytes += size - in.capacity();
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

    private void tooLong() throws IOException {
        if (front.backend != null) {
            relay(); // too long for nhc to judge: the server behind answers it
        } else {
            front.bad.bad(peer() + ": a request head longer than " + HttpFront.HEAD_MAX + " bytes (431)");
            reject(431, "Request Header Fields Too Large", "request head longer than " + HttpFront.HEAD_MAX + " bytes");
        }
    }

    /** Acts on a complete head in {@code in}, if there is one. */
    private void takeHead() throws IOException {
        int end = HttpFront.headEnd(in.array(), in.position());
        if (end < 0) {
            if (in.position() >= HttpFront.HEAD_MAX) {
                tooLong();
            }
            return;
        }
        RequestHead h = RequestHead.parse(in.array(), end);
        CompletableFuture<HttpAnswer> answer = h == null ? null : front.routes.answer(h);
        if (answer == null) {
            if (front.backend != null) {
                relay();
            } else {
                front.bad.bad(peer() + ": not an HTTP/1.x request nhc can read (400)");
                reject(400, "Bad Request", "not an HTTP/1.x request nhc can read");
            }
            return;
        }
        int rest = in.position() - (end + 4);
        System.arraycopy(in.array(), end + 4, in.array(), 0, rest); // a pipelined next request stays
        in.position(rest);
        // A body the front does not read would be taken for the next request: the connection ends after the answer.
        closeAfter = h.closeAfter() || !h.plain();
        headOnly = "HEAD".equals(h.method());
        state = State.ANSWER;
        front.busy(this);
        if (answer.isDone()) {
            respond(answer.isCompletedExceptionally() ? null : answer.getNow(null));
        } else {
            clientInterest(0);
            answer.whenComplete((a, error) -> {
                front.tasks.add(() -> respond(a));
                front.selector.wakeup();
            });
        }
    }

    private void respond(HttpAnswer a) {
        if (state != State.ANSWER) {
            return; // closed meanwhile
        }
        HttpAnswer answer = a != null ? a
                : HttpAnswer.json(500, "Internal Server Error", "{\"error\":\"nhc: no answer\"}".getBytes(StandardCharsets.UTF_8));
        ByteBuffer head = answer.head(front.date(), closeAfter);
        out = headOnly ? new ByteBuffer[] {head} : new ByteBuffer[] {head, ByteBuffer.wrap(answer.body())};
        state = State.WRITE;
        since = System.nanoTime();
        try {
            writeOut();
        } catch (IOException | RuntimeException | Error e) {
            front.bad.bad(peer() + ": " + e.getMessage());
            abort();
        }
    }

    private void writeOut() throws IOException {
        if (state != State.WRITE) {
            return;
        }
        client.write(out);
        if (out[out.length - 1].hasRemaining()) {
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
        front.waiting(this);
        if (state == State.IDLE && in.capacity() > HttpFront.HEAD_START) {
            releaseHead(); // a long head is over: an idle connection holds little
            in = ByteBuffer.allocate(HttpFront.HEAD_START);
            front.headBytes += HttpFront.HEAD_START;
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

    /** Hands this connection, from the request read so far on, to the server behind. */
    private void relay() throws IOException {
        if (front.relayed >= front.limits.maxRelayed()) {
            front.bad.bad(peer() + ": refused, " + front.relayed + " connections are being passed through already (503)");
            reject(503, "Service Unavailable", "too many connections are being passed through");
            return;
        }
        state = State.RELAY;
        front.busy(this);
        front.relayed++;
        in.flip();
        up = ByteBuffer.allocate(Math.max(HttpFront.RELAY_BUFFER, in.remaining())).put(in);
        releaseHead();
        down = ByteBuffer.allocate(HttpFront.RELAY_BUFFER);
        server = SocketChannel.open();
        server.configureBlocking(false);
        server.setOption(StandardSocketOptions.TCP_NODELAY, true);
        boolean connected = server.connect(front.backend);
        serverKey = server.register(front.selector, connected ? 0 : SelectionKey.OP_CONNECT, this);
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

    private static void flush(ByteBuffer b, SocketChannel to) throws IOException {
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
        byte[] body = ("{\"error\":\"nhc: " + message + "\"}").getBytes(StandardCharsets.UTF_8);
        try {
            client.write(HttpAnswer.json(code, reason, body).head(front.date(), true));
            client.write(ByteBuffer.wrap(body));
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
            front.headBytes -= in.capacity();
            in = null;
        }
    }

    void close() {
        if (state == State.CLOSED) {
            return;
        }
        if (state == State.RELAY) {
            front.relayed--;
        }
        state = State.CLOSED;
        releaseHead();
        front.closed(this);
        closeQuietly(client);
        if (server != null) {
            closeQuietly(server);
        }
    }

    private static void closeQuietly(SocketChannel ch) {
        try {
            ch.close();
        } catch (IOException ignored) {
            // nothing more to do with it
        }
    }

    static String human(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
    }
}
