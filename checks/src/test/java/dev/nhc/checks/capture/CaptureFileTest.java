package dev.nhc.checks.capture;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.Arrays;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class CaptureFileTest {
    @TempDir
    Path dir;

    private Path file(byte[] bytes) throws IOException {
        Path p = dir.resolve("capture.txt");
        Files.write(p, bytes);
        return p;
    }

    @Test
    void textUpToTheBoundIsReadWhole() throws IOException {
        String text = "GPU 00000000:3B:00.0\n    Product Name : NVIDIA H100 — ünïcode\r\n\tESC \u001b[1m ok\f\n";
        assertEquals(text, CaptureFile.readText(file(text.getBytes(StandardCharsets.UTF_8)), 1000));
    }

    @Test
    void aFileOverTheBoundIsRefusedByItsSizeWithoutReadingIt() throws IOException {
        Path p = file(new byte[101]);
        CaptureFile.Refused e = assertThrows(CaptureFile.Refused.class, () -> CaptureFile.readText(p, 100));
        assertEquals(p + " is 101 bytes; a capture may be at most 100 bytes (0 MiB)", e.getMessage());
    }

    @Test
    void binaryDataIsNamedWithTheByteWhereItStarts() throws IOException {
        byte[] b = "Attached GPUs : 8\n".getBytes(StandardCharsets.US_ASCII);
        byte[] withNul = Arrays.copyOf(b, b.length + 1);
        assertEquals(withNul.length - 1 + "", offsetOf(assertThrows(CaptureFile.Refused.class,
                () -> CaptureFile.readText(file(withNul), 1000))));
        byte[] badUtf8 = {'a', 'b', (byte) 0xe2, (byte) 0x82, 'x'};
        assertEquals("2", offsetOf(assertThrows(CaptureFile.Refused.class, () -> CaptureFile.readText(file(badUtf8), 1000))));
        byte[] cutAtTheEnd = {'a', (byte) 0xe2, (byte) 0x82};
        assertEquals("1", offsetOf(assertThrows(CaptureFile.Refused.class, () -> CaptureFile.readText(file(cutAtTheEnd), 1000))));
    }

    @Test
    void aKernelLogMayHoldNulPaddingAndLatin1ButNotOtherControlBytes() throws IOException {
        byte[] log = {'[', '1', ']', ' ', 'x', '\n', 0, 0, 0, (byte) 0xe9, '\n'};
        Path p = file(log);
        assertEquals(p, CaptureFile.log(p, dir, 1000));
        byte[] gz = {0x1f, (byte) 0x8b, 0x08};
        CaptureFile.Refused e = assertThrows(CaptureFile.Refused.class, () -> CaptureFile.log(file(gz), dir, 1000));
        assertEquals("0", offsetOf(e));
    }

    /**
     * A pipe the shell hands over ({@code <(command)}), here the one a child writes its output to, opened
     * as /proc/PID/fd/1 like /dev/fd/63: copied, and bounded while it is read. The child ends (the pipe
     * with it) only once its lines were read: the JVM takes what is left in a child's pipe when it exits.
     */
    @Test
    void aPipedKernelLogIsCopiedAndBoundedWhileItIsRead() throws Exception {
        Process child = new ProcessBuilder("sh", "-c", "for i in $(seq 0 99); do echo \"[$i.0] line $i\"; done; read end").start();
        try {
            Path pipe = Path.of("/proc/" + child.pid() + "/fd/1");
            Path scratch = Files.createDirectory(dir.resolve("scratch"));
            FutureTask<Path> copying = new FutureTask<>(() -> CaptureFile.log(pipe, scratch, 1 << 20));
            new Thread(copying).start();
            await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(scratch.resolve("log"))
                    && Files.readAllLines(scratch.resolve("log")).size() == 100);
            child.getOutputStream().close(); // the child ends, and the pipe with it
            assertEquals(scratch.resolve("log"), copying.get(30, TimeUnit.SECONDS));
            assertEquals(100, Files.readAllLines(scratch.resolve("log")).size());
        } finally {
            child.destroyForcibly();
        }

        Path endless = Path.of("/dev/zero");
        CaptureFile.Refused e = assertThrows(CaptureFile.Refused.class,
                () -> CaptureFile.log(endless, Files.createDirectory(dir.resolve("s2")), 1 << 20));
        assertEquals("/dev/zero is more than 1048576 bytes; a capture may be at most 1048576 bytes (1 MiB)", e.getMessage());
    }

    /** Opening a FIFO waits for a writer: with none, replay blocked forever. It is refused before it is opened. */
    @Test
    void aNamedFifoIsRefusedWithoutOpeningIt() throws Exception {
        Path fifo = dir.resolve("dmesg.txt");
        assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor());
        CaptureFile.Refused log = assertThrows(CaptureFile.Refused.class, () -> CaptureFile.log(fifo, Files.createDirectory(dir.resolve("s"))));
        assertEquals(fifo + " is a FIFO (a named pipe), not a capture: opening it would wait for a writer, forever if none comes; "
                + "give a regular file, or a pipe from the shell such as <(journalctl -k)", log.getMessage());
        assertThrows(CaptureFile.Refused.class, () -> CaptureFile.readText(fifo));
    }

    /** A pipe that never ends ({@code <(journalctl -kf)}) is read until the wait is up, then refused naming it. */
    @Test
    void aPipeThatNeverEndsIsRefusedWhenTheWaitIsUp() throws Exception {
        Process child = new ProcessBuilder("sh", "-c", "echo '[1.0] one line'; exec sleep 600").start();
        try {
            Path pipe = Path.of("/proc/" + child.pid() + "/fd/1");
            CaptureFile.Refused e = assertThrows(CaptureFile.Refused.class,
                    () -> CaptureFile.log(pipe, Files.createDirectory(dir.resolve("s")), 1 << 20, Duration.ofMillis(300)));
            assertEquals(pipe + " did not end within 300 ms; a capture must be a regular file or a pipe that ends (a command that exits, "
                    + "not journalctl -f)", e.getMessage());
        } finally {
            child.destroyForcibly();
        }
    }

    private static String offsetOf(CaptureFile.Refused e) {
        String m = e.getMessage();
        int at = m.indexOf("(binary data at byte ");
        return m.substring(at + "(binary data at byte ".length(), m.length() - 1);
    }
}
