package dev.nhc.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** bin/nhc-slurm's socket client (lib/native/nhc-slurm-ask) against a stand-in daemon. */
class SlurmAskClientIT {
    private static final Path ASK = NhcProcess.APP.resolve("lib/native/nhc-slurm-ask");
    private static final String REPORT = "FAIL    ecc: GPU 2: 2 volatile double-bit ECC errors\n";

    @TempDir
    Path dir;

    /** Answers one "verdict CONFIG" request with "ok 1" and the report. */
    private Thread daemon(ServerSocketChannel server) {
        Thread t = new Thread(() -> {
            try (SocketChannel c = server.accept()) {
                c.read(ByteBuffer.allocate(8192));
                c.write(ByteBuffer.wrap(("ok 1\n" + REPORT).getBytes(StandardCharsets.UTF_8)));
            } catch (Exception ignored) {
                // the test's assertions say what went wrong
            }
        });
        t.setDaemon(true);
        t.start();
        return t;
    }

    private ServerSocketChannel listen() throws Exception {
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
        ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(dir.resolve("nhc.sock")));
        return server;
    }

    @Test
    void theDaemonsReportAndExitAreTheAnswer() throws Exception {
        assertTrue(Files.isExecutable(ASK), ASK + " was not built (is there a C compiler?)");
        try (ServerSocketChannel server = listen()) {
            daemon(server);
            Process p = new ProcessBuilder(ASK.toString(), dir.resolve("nhc.sock").toString(), "/etc/nhc/nhc.yaml").start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(20, TimeUnit.SECONDS));
            assertEquals(1, p.exitValue());
            assertEquals(REPORT, out);
        }
    }

    /**
     * A report that cannot be written out (here stdout is /dev/full) is not a reason to fall back
     * (100): part of it may be out already and bin/nhc-slurm's one-shot run would print it again.
     */
    @Test
    void aReportThatBreaksOffWhilePrintedExitsOneAndNeverFallsBack() throws Exception {
        assertTrue(Files.isExecutable(ASK), ASK + " was not built (is there a C compiler?)");
        try (ServerSocketChannel server = listen()) {
            daemon(server);
            Process p = new ProcessBuilder(ASK.toString(), dir.resolve("nhc.sock").toString(), "/etc/nhc/nhc.yaml")
                    .redirectOutput(new File("/dev/full")).start();
            String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(20, TimeUnit.SECONDS));
            assertEquals(1, p.exitValue(), err);
            assertTrue(err.contains("the daemon's answer broke off while it was printed"), err);
        }
    }
}
