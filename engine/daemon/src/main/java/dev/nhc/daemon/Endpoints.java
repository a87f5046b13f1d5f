package dev.nhc.daemon;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The daemon's listeners, as {@code daemon:} says: the status endpoints (/healthz, /v1/verdict,
 * /metrics, /v1/recheck) and the verdict socket for bin/nhc-slurm and {@code nhc clear}. A reload
 * that changes them closes the old ones and opens the new; one that cannot listen opens the old
 * ones again.
 */
final class Endpoints implements AutoCloseable {
    private final Supplier<DaemonStatus> status;
    private final NhcMetrics metrics;
    private final Runnable recheck;
    private final VerdictSocket.Handler socketAnswers;
    private final Consumer<String> fatal;
    private StatusServer statusServer;
    private VerdictSocket verdictSocket;
    private DaemonSettings settings;

    Endpoints(Supplier<DaemonStatus> status, NhcMetrics metrics, Runnable recheck, VerdictSocket.Handler socketAnswers,
              Consumer<String> fatal) {
        this.status = status;
        this.metrics = metrics;
        this.recheck = recheck;
        this.socketAnswers = socketAnswers;
        this.fatal = fatal;
    }

    synchronized void open(DaemonSettings ds) throws IOException {
        StatusServer st = new StatusServer(ds.metricsListen(), status, metrics, ds.token(), recheck, fatal);
        VerdictSocket vs = null;
        if (ds.socket() != null) {
            try {
                vs = new VerdictSocket(ds.socket(), socketAnswers, fatal);
            } catch (IOException e) {
                st.close();
                throw e;
            }
        }
        statusServer = st.start();
        verdictSocket = vs == null ? null : vs.start();
        settings = ds;
    }

    /**
     * Listens as {@code ds} says, when that differs from now. Throws when it cannot, after opening
     * the old listeners again (said through {@code log} when even that fails).
     */
    synchronized void reopen(DaemonSettings ds, Consumer<String> log) throws IOException {
        if (ds.equals(settings)) {
            return;
        }
        DaemonSettings old = settings;
        close();
        try {
            open(ds);
        } catch (IOException e) {
            try {
                open(old);
            } catch (IOException again) {
                log.accept("could not listen again on the old addresses either: " + again.getMessage());
            }
            throw e;
        }
    }

    /** Where the status endpoints actually listen (port 0 in tests picks a free one); null when closed. */
    synchronized InetSocketAddress address() {
        return statusServer == null ? null : statusServer.address();
    }

    synchronized Path socket() {
        return verdictSocket == null ? null : verdictSocket.path();
    }

    @Override
    public synchronized void close() {
        if (verdictSocket != null) {
            verdictSocket.close();
            verdictSocket = null;
        }
        if (statusServer != null) {
            statusServer.close();
            statusServer = null;
        }
    }
}
