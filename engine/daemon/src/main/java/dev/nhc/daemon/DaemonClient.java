package dev.nhc.daemon;


import dev.nhc.units.Durations;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Asks a running daemon over its socket (what {@code nhc clear} does while the daemon holds the
 * node's state). The answer's first line is {@code ok EXIT} or {@code unavailable REASON}. The
 * whole exchange is bounded ({@link #LIMIT}): a daemon that accepts and then never answers (wedged)
 * is an error naming the bound, not a command that hangs.
 */
public final class DaemonClient {
    private static final int MAX_ANSWER = 1 << 20;
    /** Well above what the daemon takes (it cuts its own clients at {@link VerdictSocket#CLIENT_LIMIT_MS}). */
    static final Duration LIMIT = Duration.ofSeconds(10);

    private DaemonClient() {
    }

    /** The daemon's answer: its exit code and text, or why there is none ({@code ok} false). */
    public record Reply(boolean ok, int exitCode, String text) {
    }

    public static Reply clear(Path socket, List<String> checks) throws IOException {
        return ask(socket, "clear " + String.join(" ", checks), LIMIT);
    }

    static Reply ask(Path socket, String request, Duration limit) throws IOException {
        String answer = exchange(socket, request, limit);
        int nl = answer.indexOf('\n');
        String head = nl < 0 ? answer : answer.substring(0, nl);
        String rest = nl < 0 ? "" : answer.substring(nl + 1);
        if (head.startsWith("ok ")) {
            try {
                return new Reply(true, Integer.parseInt(head.substring(3).strip()), rest);
            } catch (NumberFormatException e) {
                return new Reply(false, 0, "the daemon answered '" + head + "'");
            }
        }
        return new Reply(false, 0, head.startsWith("unavailable ") ? head.substring("unavailable ".length()) : head);
    }

    /** Sends the request line and reads until the daemon closes the connection, all within {@code limit}. */
    private static String exchange(Path socket, String request, Duration limit) throws IOException {
        long until = System.nanoTime() + limit.toNanos();
        try (SocketChannel c = SocketChannel.open(StandardProtocolFamily.UNIX); Selector selector = Selector.open()) {
            c.configureBlocking(false);
            SelectionKey key = c.register(selector, 0);
            if (!c.connect(UnixDomainSocketAddress.of(socket))) {
                await(selector, key, SelectionKey.OP_CONNECT, until, limit, "accept the connection");
                c.finishConnect();
            }
            ByteBuffer out = ByteBuffer.wrap((request + "\n").getBytes(StandardCharsets.UTF_8));
            while (out.hasRemaining()) {
                if (c.write(out) == 0) {
                    await(selector, key, SelectionKey.OP_WRITE, until, limit, "take the request");
                }
            }
            ByteBuffer buf = ByteBuffer.allocate(MAX_ANSWER);
            while (buf.hasRemaining()) {
                int n = c.read(buf);
                if (n < 0) {
                    break; // the daemon closed the connection: the answer is complete
                }
                if (n == 0) {
                    await(selector, key, SelectionKey.OP_READ, until, limit, "answer");
                }
            }
            return new String(buf.array(), 0, buf.position(), StandardCharsets.UTF_8);
        }
    }

    private static void await(Selector selector, SelectionKey key, int op, long until, Duration limit, String what) throws IOException {
        key.interestOps(op);
        while (true) {
            long left = (until - System.nanoTime()) / 1_000_000;
            if (left <= 0) {
                throw new IOException("the daemon did not " + what + " within " + Durations.human(limit));
            }
            selector.selectedKeys().clear();
            if (selector.select(left) > 0 && key.isValid() && (key.readyOps() & op) != 0) {
                return;
            }
        }
    }
}
