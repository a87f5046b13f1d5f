package dev.nhc.daemon;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

/**
 * Asks a running daemon over its socket (what {@code nhc clear} does while the daemon holds the
 * node's state). The answer's first line is {@code ok EXIT} or {@code unavailable REASON}.
 */
public final class DaemonClient {
    private static final int MAX_ANSWER = 1 << 20;

    private DaemonClient() {
    }

    /** The daemon's answer: its exit code and text, or why there is none ({@code ok} false). */
    public record Reply(boolean ok, int exitCode, String text) {
    }

    public static Reply clear(Path socket, List<String> checks) throws IOException {
        return ask(socket, "clear " + String.join(" ", checks));
    }

    static Reply ask(Path socket, String request) throws IOException {
        String answer;
        try (SocketChannel c = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            c.connect(UnixDomainSocketAddress.of(socket));
            ByteBuffer out = ByteBuffer.wrap((request + "\n").getBytes(StandardCharsets.UTF_8));
            while (out.hasRemaining()) {
                c.write(out);
            }
            ByteBuffer buf = ByteBuffer.allocate(MAX_ANSWER);
            while (buf.hasRemaining() && c.read(buf) >= 0) {
                // until the daemon closes the connection
            }
            answer = new String(buf.array(), 0, buf.position(), StandardCharsets.UTF_8);
        }
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
}
