package dev.nhc.daemon;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class VerdictSocketTest {
    @TempDir
    Path dir;

    private static final java.util.function.Consumer<String> FATAL = why -> {
        throw new AssertionError("the socket's listener stopped: " + why);
    };

    private static final VerdictSocket.Handler ANSWER = new VerdictSocket.Handler() {
        @Override
        public VerdictSocket.Answer verdict(String configFile) {
            return VerdictSocket.Answer.text(0, "fine\n");
        }

        @Override
        public VerdictSocket.Answer clear(List<String> checks) {
            return VerdictSocket.Answer.text(0, "");
        }
    };

    /**
     * bin/nhc-slurm (root) trusts whatever answers on the socket: in a directory others can write,
     * one of them could replace it with their own. The daemon refuses, and leaves what is there alone.
     */
    @Test
    void aSocketDirectoryOthersCanWriteIsRefusedAndNothingInItIsReplaced() throws Exception {
        Path open = Files.createDirectory(dir.resolve("open"));
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxrwxrwx"));
        Path socket = open.resolve("nhc.sock");
        try (ServerSocketChannel planted = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            planted.bind(UnixDomainSocketAddress.of(socket));
            Object before = Files.getAttribute(socket, "unix:ino", LinkOption.NOFOLLOW_LINKS);
            IOException e = assertThrows(IOException.class, () -> new VerdictSocket(socket, ANSWER, true, FATAL));
            assertTrue(e.getMessage().startsWith("daemon.socket " + socket + ": will not listen in " + open.toRealPath()), e.getMessage());
            assertTrue(e.getMessage().contains("only root"), e.getMessage());
            assertEquals(before, Files.getAttribute(socket, "unix:ino", LinkOption.NOFOLLOW_LINKS), "the socket there was left alone");
        }
    }

    @Test
    void aMissingDirectoryIsCreatedOwnerOnlyAndAStaleSocketReplaced() throws Exception {
        Path socket = dir.resolve("run/nhc/nhc.sock");
        new VerdictSocket(socket, ANSWER, false, FATAL).close();
        assertEquals(0700, (Integer) Files.getAttribute(socket.getParent(), "unix:mode") & 0777);
        try (ServerSocketChannel stale = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            stale.bind(UnixDomainSocketAddress.of(socket));
        }
        try (VerdictSocket s = new VerdictSocket(socket, ANSWER, false, FATAL).start()) {
            assertTrue(SocketClient.ask(socket, "verdict x").startsWith("ok 0\nfine"));
        }
    }

    /**
     * Four idle root clients once held every handler, and bin/nhc-slurm fell back to a run of its
     * own. Clients that connect and send nothing hold no thread now, and past the connection limit
     * the one that waited longest makes room: many idle clients, and every real request is answered.
     */
    @Test
    void idleClientsDoNotKeepARealRequestOut() throws Exception {
        Path socket = dir.resolve("run/nhc.sock");
        List<java.nio.channels.SocketChannel> idle = new java.util.ArrayList<>();
        try (VerdictSocket s = new VerdictSocket(socket, ANSWER, false, FATAL).start()) {
            for (int i = 0; i < VerdictSocket.MAX_CONNECTIONS + 20; i++) {
                java.nio.channels.SocketChannel c = java.nio.channels.SocketChannel.open(StandardProtocolFamily.UNIX);
                c.connect(UnixDomainSocketAddress.of(socket));
                idle.add(c);
                if (i % 16 == 0) {
                    assertTrue(SocketClient.ask(socket, "verdict x").startsWith("ok 0\nfine"), "with " + (i + 1) + " idle clients");
                }
            }
            for (int i = 0; i < 20; i++) {
                assertTrue(SocketClient.ask(socket, "verdict x").startsWith("ok 0\nfine"));
            }
        } finally {
            for (java.nio.channels.SocketChannel c : idle) {
                c.close();
            }
        }
    }

    /** A client that sends half a line and stops is cut off at the limit; the socket serves on. */
    @Test
    void aClientThatNeverFinishesItsLineIsCutOff() throws Exception {
        Path socket = dir.resolve("run/nhc.sock");
        try (VerdictSocket s = new VerdictSocket(socket, ANSWER, false, FATAL).start();
             java.nio.channels.SocketChannel c = java.nio.channels.SocketChannel.open(StandardProtocolFamily.UNIX)) {
            c.connect(UnixDomainSocketAddress.of(socket));
            c.write(java.nio.ByteBuffer.wrap("verd".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
            long t0 = System.nanoTime();
            assertEquals(-1, c.read(java.nio.ByteBuffer.allocate(16)), "closed without an answer");
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(ms >= VerdictSocket.CLIENT_LIMIT_MS - 200, "cut off after " + ms + " ms");
            assertTrue(SocketClient.ask(socket, "verdict x").startsWith("ok 0\nfine"));
        }
    }
}
