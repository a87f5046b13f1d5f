package dev.nhc.daemon;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/** What bin/nhc-slurm's client does, for tests: one request line, the whole answer back. */
final class SocketClient {
    private SocketClient() {
    }

    static String ask(Path socket, String request) throws IOException {
        try (SocketChannel c = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            c.connect(UnixDomainSocketAddress.of(socket));
            c.write(ByteBuffer.wrap((request + "\n").getBytes(StandardCharsets.UTF_8)));
            ByteBuffer buf = ByteBuffer.allocate(1 << 20);
            while (c.read(buf) >= 0) {
                if (!buf.hasRemaining()) {
                    break;
                }
            }
            return new String(buf.array(), 0, buf.position(), StandardCharsets.UTF_8);
        }
    }
}
