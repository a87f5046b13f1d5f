package dev.nhc.checks.kernel;

import dev.nhc.checks.host.Executables;
import dev.nhc.checks.kernel.KernelLogLine.Origin;
import dev.nhc.engine.process.ProcessRunner;
import dev.nhc.engine.process.TrustedCommand;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The {@code journal} source: {@code journalctl -k -o json [--after-cursor=C]}, run as root runs
 * every program (system directories, a root-owned program, a clean environment). {@code -k} is
 * this boot's kernel entries; each is still checked for {@code _TRANSPORT=kernel} (journald's own
 * field) and this boot's {@code _BOOT_ID}. A cursor journalctl refuses (damaged, or from a
 * journal since removed) is dropped, said, and the journal read without it.
 */
final class JournalSource {
    private static final Pattern JOURNAL_BOOT_ID = Pattern.compile("[0-9a-f]{32}");

    private final String journalctl;
    private final Clock clock;

    JournalSource(String journalctl, Clock clock) {
        this.journalctl = journalctl;
        this.clock = clock;
    }

    /** What a read did: whether it started without a cursor, whether the deadline cut it short. */
    record Read(boolean restarted, boolean incomplete) {
    }

    /** Hands this boot's entries after the stored cursor (all of them without one) to the gate, and keeps the new cursor. */
    Read read(LineGate c, KernelLogCursor cursor, boolean keepCursor, String boot) throws IOException {
        String from = keepCursor ? cursor.journalCursor() : null;
        long offered = c.read + c.skipped;
        JournalRun run = runJournal(c, from, boot);
        if (from != null && !run.result.timedOut() && run.result.exitCode() != 0 && c.read + c.skipped == offered
                && run.result.firstLine().toLowerCase(java.util.Locale.ROOT).contains("cursor")) {
            // A cursor journalctl cannot use (damaged, or from a journal since removed) would fail every run.
            cursor.dropJournalCursor(run.result.firstLine());
            from = null;
            run = runJournal(c, null, boot);
        }
        if (run.result.timedOut()) {
            return new Read(from == null, true);
        }
        if (run.result.exitCode() != 0) {
            throw new IOException(journalctl + " -k exited with " + run.result.exitCode() + ": " + run.result.firstLine());
        }
        if (run.cursor != null) {
            cursor.saveJournalCursor(run.cursor);
        }
        return new Read(from == null, false);
    }

    private record JournalRun(ProcessRunner.Result result, String cursor) {
    }

    private JournalRun runJournal(LineGate c, String after, String boot) throws IOException {
        List<String> argv = new ArrayList<>(List.of(journalctl, "-k", "-o", "json", "--output-fields=" + JournalEntry.OUTPUT_FIELDS,
                "--all", "--no-pager", "--show-cursor", "-q"));
        if (after != null) {
            argv.add("--after-cursor=" + after);
        }
        String[] newCursor = {null};
        long[] lineNo = {0};
        // /proc's boot id with its dashes is journald's _BOOT_ID without them; another form (a test root) is not compared
        String dashless = boot == null ? "" : boot.replace("-", "").toLowerCase(java.util.Locale.ROOT);
        String thisBoot = JOURNAL_BOOT_ID.matcher(dashless).matches() ? dashless : null;
        Duration left = Duration.between(clock.instant(), c.end);
        // root runs it: the system directories only, a root-owned program, a clean environment
        try (TrustedCommand cmd = Executables.prepare(argv)) {
            ProcessRunner.Result r = Executables.runner(cmd)
                    .timeout(left.isNegative() ? Duration.ZERO : left)
                    .onStdoutLine(text -> {
                        if (text.startsWith("-- cursor: ")) {
                            newCursor[0] = text.substring("-- cursor: ".length()).trim();
                        } else if (!text.isBlank() && !text.startsWith("-- No entries --")) {
                            JournalEntry e = JournalEntry.parse(text);
                            lineNo[0]++;
                            if (e == null) {
                                c.offer(new KernelLogLine(lineNo[0], null, null, text, Origin.UNKNOWN));
                            } else if (thisBoot != null && e.bootId() != null && !thisBoot.equals(e.bootId())) {
                                c.beforeBoot++; // -k reads this boot only; an entry that says otherwise is not judged
                            } else {
                                c.offer(journalLine(lineNo[0], e));
                                if (e.cursor() != null) {
                                    newCursor[0] = e.cursor();
                                }
                            }
                        }
                    })
                    .run();
            return new JournalRun(r, newCursor[0]);
        } catch (Executables.Unusable e) {
            throw new IOException(e.getMessage() + " (needed for log: journal)");
        } catch (ProcessRunner.StartFailure e) {
            throw new IOException("cannot run " + journalctl + " (needed for log: journal): " + e.reason());
        } catch (InterruptedException e) {
            // the runner gave up on this check; journalctl is already killed
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted while reading the journal with " + journalctl);
        }
    }

    private static KernelLogLine journalLine(long lineNo, JournalEntry e) {
        Instant t = e.realtimeUsec() == null ? null : Instant.EPOCH.plusNanos(e.realtimeUsec() * 1000);
        Double up = e.monotonicUsec() == null ? null : e.monotonicUsec() / 1e6;
        return new KernelLogLine(lineNo, t, up, e.message(), e.fromKernel() ? Origin.KERNEL : Origin.OTHER);
    }
}
