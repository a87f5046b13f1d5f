package dev.nhc.daemon;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DaemonClientTest {
    @TempDir
    Path dir;

    /** A wedged daemon: it accepts the connection and never answers; {@code nhc clear} must not wait for it forever. */
    @Test
    void aDaemonThatNeverAnswersIsGivenUpOnWithinTheBound() throws Exception {
        Path socket = dir.resolve("wedged.sock");
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(socket));
            IOException e = assertTimeoutPreemptively(Duration.ofSeconds(10),
                    () -> assertThrows(IOException.class, () -> DaemonClient.ask(socket, "clear xid", Duration.ofMillis(300))));
            assertTrue(e.getMessage().contains("did not answer within 300ms"), e.getMessage());
            // the connection it made is still waiting in the backlog: accept it so the test ends cleanly
            try (SocketChannel ignored = server.accept()) {
                // nothing
            }
        }
    }

    @Test
    void noDaemonOnTheSocketSaysSo() {
        IOException e = assertThrows(IOException.class, () -> DaemonClient.ask(dir.resolve("none.sock"), "clear xid", Duration.ofSeconds(1)));
        assertTrue(e.getMessage() != null && !e.getMessage().isBlank());
    }
}
