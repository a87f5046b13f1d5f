package dev.nhc.checks.capture;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Reads what {@code nhc replay} is given (captured nvidia-smi, dcgmi and kernel log output) with a
 * size bound and a check that it is text, before any parser sees it: a 300 MB attachment or
 * {@code /dev/zero} is "too large", not an out-of-memory crash, and binary data (a compressed log,
 * a core file) is named as such with the byte where it starts, not "Input length = 1".
 *
 * <p>Text means UTF-8 without control characters other than tab, line and form feeds, carriage
 * return and escape (colour codes of {@code dmesg --color}). A kernel log may also hold NUL
 * padding (what a crash leaves in a log file) and bytes that are not UTF-8 (the reader decodes
 * leniently). Pipes from the shell work ({@code --nvidia-smi-q <(ssh node nvidia-smi -q)}): the
 * size bound is then applied while reading, and the pipe must end within {@link #PIPE_WAIT}
 * ({@code <(journalctl -kf)} never would). A named FIFO is refused before it is opened: opening one
 * waits for a writer, forever if none comes.
 */
public final class CaptureFile {
    /** nvidia-smi -q of eight GPUs is about 100 KB; dcgmi output is smaller. */
    public static final long MAX_CAPTURE_BYTES = 16L << 20;
    /** A log (kernel, fabric manager) is streamed, not held, but judged within one check's time. */
    public static final long MAX_KERNEL_LOG_BYTES = 256L << 20;
    private static final int CHUNK = 64 * 1024;
    /** How long a pipe (or a device) may take to deliver its capture and end. */
    static final Duration PIPE_WAIT = Duration.ofSeconds(60);
    private static final int S_IFMT = 0170000;
    private static final int S_IFIFO = 0010000;

    /** The capture cannot be judged; the message names the file and why, ready for the user. */
    public static final class Refused extends IOException {
        private static final long serialVersionUID = 1L;

        Refused(String message) {
            super(message);
        }
    }

    private CaptureFile() {
    }

    /** The whole capture as text, at most {@link #MAX_CAPTURE_BYTES}. */
    public static String readText(Path file) throws IOException {
        return readText(file, MAX_CAPTURE_BYTES);
    }

    /** The whole capture as text, at most {@code maxBytes} (a capture of a kind known to be smaller). */
    public static String readText(Path file, long maxBytes) throws IOException {
        boolean regular = refuseIfUnfit(file, maxBytes);
        Read<byte[]> read = () -> {
            try (InputStream in = Files.newInputStream(file)) {
                return in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, maxBytes + 1));
            } catch (NoSuchFileException e) {
                throw new Refused("cannot read " + file + ": no such file");
            }
        };
        byte[] bytes = regular ? read.run() : within(file, PIPE_WAIT, read);
        if (bytes.length > maxBytes) {
            throw tooLarge(file, -1, maxBytes);
        }
        TextCheck check = new TextCheck(file, false);
        check.update(bytes, bytes.length);
        check.finish();
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /**
     * The first {@code maxBytes} of a capture, decoded leniently, to tell what it is: nothing is
     * judged on it. A missing file, a directory, or anything but a regular file (a pipe is read
     * through its copy, see {@link #log}) is {@link Refused}.
     */
    public static String head(Path file, int maxBytes) throws IOException {
        if (Files.isDirectory(file)) {
            throw new Refused(file + " is a directory, not a capture");
        }
        if (Files.exists(file) && !Files.isRegularFile(file)) {
            throw new Refused(file + " is not a regular file; read it through a copy");
        }
        try (InputStream in = Files.newInputStream(file)) {
            return new String(in.readNBytes(maxBytes), StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw new Refused("cannot read " + file + ": no such file");
        }
    }

    /**
     * A log (the kernel's, the fabric manager's) to stream from: the file itself when it is a
     * regular file, else (a pipe) a copy in {@code scratch}, a directory of its own; either way at
     * most {@link #MAX_KERNEL_LOG_BYTES} and text.
     */
    public static Path log(Path file, Path scratch) throws IOException {
        return log(file, scratch, MAX_KERNEL_LOG_BYTES);
    }

    static Path log(Path file, Path scratch, long maxBytes) throws IOException {
        return log(file, scratch, maxBytes, PIPE_WAIT);
    }

    static Path log(Path file, Path scratch, long maxBytes, Duration pipeWait) throws IOException {
        boolean regular = refuseIfUnfit(file, maxBytes);
        Path target = regular ? file : scratch.resolve("log");
        Read<Path> read = () -> {
            TextCheck check = new TextCheck(file, true);
            byte[] buf = new byte[CHUNK];
            long total = 0;
            try (InputStream in = Files.newInputStream(file);
                 OutputStream copy = regular ? OutputStream.nullOutputStream()
                         : Files.newOutputStream(target, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                int n;
                while ((n = in.read(buf)) > 0) {
                    total += n;
                    if (total > maxBytes) {
                        throw tooLarge(file, -1, maxBytes);
                    }
                    check.update(buf, n);
                    copy.write(buf, 0, n);
                }
            } catch (NoSuchFileException e) {
                throw new Refused("cannot read " + file + ": no such file");
            }
            check.finish();
            return target;
        };
        return regular ? read.run() : within(file, pipeWait, read);
    }

    /** Refuses what cannot be a capture (a directory, a named FIFO, a file past the bound); says whether it is a regular file. */
    private static boolean refuseIfUnfit(Path file, long maxBytes) throws IOException {
        BasicFileAttributes a;
        try {
            a = Files.readAttributes(file, BasicFileAttributes.class);
        } catch (NoSuchFileException e) {
            throw new Refused("cannot read " + file + ": no such file");
        }
        if (a.isDirectory()) {
            throw new Refused(file + " is a directory, not a capture");
        }
        if (a.isRegularFile() && a.size() > maxBytes) {
            throw tooLarge(file, a.size(), maxBytes);
        }
        if (a.isOther() && isFifo(file) && !shellPipe(file)) {
            throw new Refused(file + " is a FIFO (a named pipe), not a capture: opening it would wait for a writer, forever if none "
                    + "comes; give a regular file, or a pipe from the shell such as <(journalctl -k)");
        }
        return a.isRegularFile();
    }

    private static boolean isFifo(Path file) throws IOException {
        try {
            return (((Number) Files.getAttribute(file, "unix:mode")).intValue() & S_IFMT) == S_IFIFO;
        } catch (UnsupportedOperationException e) {
            return false;
        }
    }

    /** A pipe the shell hands over (/dev/fd/63 of {@code <(command)}, /dev/stdin): its link reads "pipe:[inode]", and it has a writer. */
    private static boolean shellPipe(Path file) throws IOException {
        Path p = file.toAbsolutePath();
        for (int i = 0; i < 8 && Files.isSymbolicLink(p); i++) {
            Path target = Files.readSymbolicLink(p);
            if (target.toString().startsWith("pipe:[")) {
                return true;
            }
            p = p.getParent() == null ? target : p.getParent().resolve(target);
        }
        return false;
    }

    private interface Read<T> {
        T run() throws IOException;
    }

    /**
     * Opens and reads a pipe in a thread of its own and waits at most {@code wait} for it to end;
     * one that does not is refused, naming it. The thread is left blocked until the process ends
     * (nhc replay ends right after): a read of a pipe cannot be interrupted, and closing the pipe
     * under it would block the closer as well.
     */
    private static <T> T within(Path file, Duration wait, Read<T> read) throws IOException {
        FutureTask<T> task = new FutureTask<>(read::run);
        Thread t = new Thread(task, "nhc-capture-read");
        t.setDaemon(true);
        t.start();
        try {
            return task.get(wait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            String within = wait.toMillis() < 1000 ? wait.toMillis() + " ms" : wait.toSeconds() + " s";
            throw new Refused(file + " did not end within " + within + "; a capture must be a regular file or a pipe that ends "
                    + "(a command that exits, not journalctl -f)");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new IOException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted while reading " + file);
        }
    }

    /** {@code size} -1: not known, only that it passed the bound while reading. */
    private static Refused tooLarge(Path file, long size, long maxBytes) {
        return new Refused(file + " is " + (size < 0 ? "more than " + maxBytes : Long.toString(size)) + " bytes; a capture may be at most "
                + maxBytes + " bytes (" + (maxBytes >> 20) + " MiB)");
    }

    /** Checks bytes as they come: control characters anywhere, and (unless lenient) UTF-8 across chunk ends. */
    private static final class TextCheck {
        private final Path file;
        private final boolean log;
        private final CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
        private final CharBuffer chars = CharBuffer.allocate(CHUNK);
        /** The start of a UTF-8 sequence that the last chunk cut off. */
        private byte[] pending = new byte[0];
        private long offset;

        TextCheck(Path file, boolean log) {
            this.file = file;
            this.log = log;
        }

        void update(byte[] b, int n) throws Refused {
            for (int i = 0; i < n; i++) {
                int c = b[i] & 0xff;
                if (c < 0x20 && c != '\t' && c != '\n' && c != 0x0b && c != '\f' && c != '\r' && c != 0x1b && !(log && c == 0)) {
                    throw binary(offset + i);
                }
            }
            if (!log) {
                byte[] joined = new byte[pending.length + n];
                System.arraycopy(pending, 0, joined, 0, pending.length);
                System.arraycopy(b, 0, joined, pending.length, n);
                ByteBuffer in = ByteBuffer.wrap(joined);
                decode(in, offset - pending.length, false);
                pending = java.util.Arrays.copyOfRange(joined, in.position(), joined.length);
            }
            offset += n;
        }

        void finish() throws Refused {
            if (!log) {
                decode(ByteBuffer.wrap(pending), offset - pending.length, true);
            }
        }

        private void decode(ByteBuffer in, long base, boolean end) throws Refused {
            while (true) {
                chars.clear();
                CoderResult r = utf8.decode(in, chars, end);
                if (r.isError()) {
                    throw binary(base + in.position());
                }
                if (r.isUnderflow()) {
                    return;
                }
            }
        }

        private Refused binary(long at) {
            return new Refused(file + " is not text (binary data at byte " + at + ")");
        }
    }
}
