package dev.nhc.checks.capture;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

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

    @Test
    void aPipedKernelLogIsCopiedAndBoundedWhileItIsRead() throws Exception {
        Path fifo = dir.resolve("fifo");
        Process mk = new ProcessBuilder("mkfifo", fifo.toString()).start();
        assertEquals(0, mk.waitFor());
        Path scratch = Files.createDirectory(dir.resolve("scratch"));
        Thread writer = new Thread(() -> {
            try (OutputStream out = Files.newOutputStream(fifo)) {
                for (int i = 0; i < 100; i++) {
                    out.write(("[" + i + ".0] line " + i + "\n").getBytes(StandardCharsets.US_ASCII));
                }
            } catch (IOException ignored) {
                // the reader stopped early
            }
        });
        writer.start();
        Path copy = CaptureFile.log(fifo, scratch, 1 << 20);
        writer.join(10_000);
        assertEquals(scratch.resolve("log"), copy);
        assertEquals(100, Files.readAllLines(copy).size());

        Path endless = Path.of("/dev/zero");
        CaptureFile.Refused e = assertThrows(CaptureFile.Refused.class,
                () -> CaptureFile.log(endless, Files.createDirectory(dir.resolve("s2")), 1 << 20));
        assertEquals("/dev/zero is more than 1048576 bytes; a capture may be at most 1048576 bytes (1 MiB)", e.getMessage());
    }

    private static String offsetOf(CaptureFile.Refused e) {
        String m = e.getMessage();
        int at = m.indexOf("(binary data at byte ");
        return m.substring(at + "(binary data at byte ".length(), m.length() - 1);
    }
}
