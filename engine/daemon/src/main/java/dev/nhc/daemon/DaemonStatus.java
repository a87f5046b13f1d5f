package dev.nhc.daemon;

import dev.nhc.model.Verdict;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * What the daemon knows about itself at one moment, for /healthz and /metrics.
 *
 * @param verdict       the latest verdict, null before the first check finished
 * @param finishedAt    when each check's latest result came in
 * @param problems      nhc's own trouble right now (state write failing, rejected reload), empty when fine
 * @param unavailable   what keeps a plugin from serving its clients right now ({@link DaemonPlugin#unavailable()},
 *                      e.g. a proxy stuck on a hung upstream), also among {@code problems};
 *                      /healthz answers 503 while it is not empty
 */
public record DaemonStatus(Verdict verdict, Map<String, Instant> finishedAt, Instant startedAt, List<String> problems,
                           long stateWriteErrors, long reloads, long reloadFailures, List<String> unavailable) {

    public DaemonStatus {
        finishedAt = Map.copyOf(finishedAt);
        problems = List.copyOf(problems);
        unavailable = List.copyOf(unavailable);
    }

    public DaemonStatus(Verdict verdict, Map<String, Instant> finishedAt, Instant startedAt, List<String> problems,
                        long stateWriteErrors, long reloads, long reloadFailures) {
        this(verdict, finishedAt, startedAt, problems, stateWriteErrors, reloads, reloadFailures, List.of());
    }
}
