package dev.nhc.daemon;

import dev.nhc.engine.config.Ownership;
import dev.nhc.engine.files.IoReason;
import dev.nhc.engine.files.UntrustedPathException;
import dev.nhc.engine.report.TextReport;
import dev.nhc.engine.state.StateDirectory;
import dev.nhc.model.Verdict;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The daemon's verdict for {@code bin/nhc-slurm}, on a UNIX socket only its owner (root) can
 * reach: slurmd's health check then costs a connect and a read instead of a JVM start. One request
 * line, {@code verdict CONFIG_FILE}; the answer is {@code ok EXIT} and the report, or
 * {@code unavailable REASON} (another config, no verdict yet, a stale one), on which the client
 * runs the one-shot check itself. {@code clear CHECK...} is {@code nhc clear} while the daemon holds
 * the node's state. Each connection gets at most {@link #CLIENT_LIMIT_MS} ms from connect to answer;
 * clients that connect and send nothing hold no thread and cannot keep others out ({@link LineServer}).
 */
final class VerdictSocket implements AutoCloseable {
    static final int CLIENT_LIMIT_MS = 2000;
    /** Connections at once; past that the one that has waited longest for its request line is closed. */
    static final int MAX_CONNECTIONS = 128;
    private static final int QUEUE = 64;

    /** What the daemon answers. */
    record Answer(boolean ok, int exitCode, String text) {
        static Answer unavailable(String why) {
            return new Answer(false, 0, why.replace('\n', ' '));
        }

        static Answer of(int exitCode, Verdict verdict, List<String> notes) {
            return new Answer(true, exitCode, TextReport.render(verdict, false, notes));
        }

        static Answer text(int exitCode, String text) {
            return new Answer(true, exitCode, text);
        }

        byte[] bytes() {
            String head = ok ? "ok " + exitCode + "\n" : "unavailable " + text + "\n";
            return (ok ? head + text : head).getBytes(StandardCharsets.UTF_8);
        }
    }

    private final Path path;
    private final ServerSocketChannel server;
    private final Handler answer;

    /** What the daemon answers to each request. */
    interface Handler {
        Answer verdict(String configFile);

        Answer clear(List<String> checks);
    }
    private final ExecutorService handlers;
    private final LineServer lines;

    /** Binds {@code path} with the root-only rules when nhc runs as root. */
    VerdictSocket(Path path, Handler answer, Consumer<String> fatal) throws IOException {
        this(path, answer, Ownership.runningAsRoot(), fatal);
    }

    /**
     * Binds {@code path}: its directory is created owner-only when missing; a stale socket there is
     * replaced, anything else refused. With {@code rootOnly} (nhc as root) the directory and every
     * directory above it must be root's and writable by no one else, as for {@code state_dir}: who
     * could write there could swap the socket bin/nhc-slurm (root) trusts for one of their own.
     */
    VerdictSocket(Path path, Handler answer, boolean rootOnly, Consumer<String> fatal) throws IOException {
        this.answer = answer;
        Path given = path.toAbsolutePath();
        Path dir = given.getParent();
        Path real;
        try {
            real = StateDirectory.check(dir, rootOnly);
        } catch (UntrustedPathException e) {
            throw new IOException("daemon.socket " + path + ": will not listen in " + dir + ": " + e.getMessage()
                    + "; running as root, nhc listens only where only root can change the socket (set daemon.socket)", e);
        } catch (IOException e) {
            throw new IOException("daemon.socket " + path + ": " + IoReason.of(e), e);
        }
        if (!Files.isDirectory(real, LinkOption.NOFOLLOW_LINKS)) {
            Files.createDirectories(real, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        }
        // Bound at the checked real path: nothing on the way to it can change any more.
        this.path = real.resolve(given.getFileName());
        if (Files.exists(this.path, LinkOption.NOFOLLOW_LINKS)) {
            if (!"socket".equals(kind(this.path))) {
                throw new IOException("daemon.socket " + path + " exists and is not a socket; refusing to replace it");
            }
            Files.delete(this.path); // left behind by a daemon that was killed
        }
        ServerSocketChannel s = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            s.bind(UnixDomainSocketAddress.of(this.path));
            Files.setPosixFilePermissions(this.path, PosixFilePermissions.fromString("rw-------"));
        } catch (IOException e) {
            s.close();
            throw new IOException("daemon.socket " + path + ": cannot listen (" + e.getMessage() + ")", e);
        }
        this.server = s;
        // Answers are made from memory: a few threads keep up with any number of clients; past the queue a client falls back.
        this.handlers = new ThreadPoolExecutor(1, 4, 30, TimeUnit.SECONDS, new ArrayBlockingQueue<>(QUEUE), r -> thread(r, "nhc-socket-answer"));
        try {
            this.lines = new LineServer(s, this::serve, handlers, CLIENT_LIMIT_MS, MAX_CONNECTIONS, fatal);
        } catch (IOException e) {
            s.close();
            handlers.shutdownNow();
            throw e;
        }
    }

    private static String kind(Path p) throws IOException {
        Object mode = Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS);
        int type = ((Integer) mode) & 0170000;
        return type == 0140000 ? "socket" : "other";
    }

    private static Thread thread(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    VerdictSocket start() {
        lines.start();
        return this;
    }

    Path path() {
        return path;
    }

    /** One request line's answer. */
    private byte[] serve(String request) {
        Answer a;
        try {
            if (request != null && request.startsWith("verdict")) {
                a = answer.verdict(request.substring("verdict".length()).strip());
            } else if (request != null && request.startsWith("clear ")) {
                a = answer.clear(List.of(request.substring("clear ".length()).strip().split("\\s+")));
            } else {
                a = Answer.unavailable("unknown request; send 'verdict CONFIG_FILE' or 'clear CHECK...'");
            }
        } catch (RuntimeException e) {
            a = Answer.unavailable("the daemon could not answer (" + e.getMessage() + ")");
        }
        return a.bytes();
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        lines.close();
        handlers.shutdownNow();
        try {
            Files.deleteIfExists(path);
        } catch (IOException ignored) {
            // a stale socket is replaced by the next daemon
        }
    }
}
