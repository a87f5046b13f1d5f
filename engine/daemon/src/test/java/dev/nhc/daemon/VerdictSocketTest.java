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
            IOException e = assertThrows(IOException.class, () -> new VerdictSocket(socket, ANSWER, true));
            assertTrue(e.getMessage().startsWith("daemon.socket " + socket + ": will not listen in " + open.toRealPath()), e.getMessage());
            assertTrue(e.getMessage().contains("only root"), e.getMessage());
            assertEquals(before, Files.getAttribute(socket, "unix:ino", LinkOption.NOFOLLOW_LINKS), "the socket there was left alone");
        }
    }

    @Test
    void aMissingDirectoryIsCreatedOwnerOnlyAndAStaleSocketReplaced() throws Exception {
        Path socket = dir.resolve("run/nhc/nhc.sock");
        new VerdictSocket(socket, ANSWER, false).close();
        assertEquals(0700, (Integer) Files.getAttribute(socket.getParent(), "unix:mode") & 0777);
        try (ServerSocketChannel stale = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            stale.bind(UnixDomainSocketAddress.of(socket));
        }
        try (VerdictSocket s = new VerdictSocket(socket, ANSWER, false).start()) {
            assertTrue(SocketClient.ask(socket, "verdict x").startsWith("ok 0\nfine"));
        }
    }
}
