package dev.nhc.checks.kernel;

import dev.nhc.checks.logfile.LogFile;
import dev.nhc.checks.logfile.LogFileCursor;
import dev.nhc.checks.logfile.StateValues;
import dev.nhc.probe.ProbeState;

import java.util.List;

/**
 * The kernel log reader's cursor as kept in the check's state (keys {@code log.*}), every value
 * checked on the way in. State may come from an older nhc, a hand edit or a damaged disk, and a
 * value out of range must never blind the reader: a head length of 300000000 once made every run
 * fail with "Java heap space" and miss the next XID. An invalid value is dropped and said in
 * {@link #warnings()}; the reader then goes on without it (identifies the file again, or starts
 * over), so the run still reads the new lines.
 *
 * <p>Keys: {@code log.source} and {@code log.boot_id} for every source; {@code log.seq} (kmsg);
 * {@code log.cursor} (journal); for a file its {@link LogFileCursor} under {@code log.}
 * ({@code log.device}, {@code log.inode}, {@code log.offset}…). {@code log.file_key} is nhc 0.1's
 * "(dev=803,ino=1234)", read once and replaced.
 */
final class KernelLogCursor {
    static final String SOURCE = "log.source";
    static final String BOOT_ID = "log.boot_id";
    static final String SEQ = "log.seq";
    static final String JOURNAL = "log.cursor";
    static final String LEGACY_FILE_KEY = "log.file_key";
    private static final LogFileCursor FILE = LogFileCursor.under("log.", LEGACY_FILE_KEY);

    private static final int TEXT_MAX = 4096;

    private final ProbeState state;
    private final StateValues values;
    private final String source;
    private final String bootId;
    private final boolean bootIdDropped;
    private final long seq;
    private final String journal;
    private final LogFile.Position file;

    KernelLogCursor(ProbeState state) {
        this.state = state;
        this.values = new StateValues(state);
        this.source = values.text(SOURCE, TEXT_MAX, "a log source (kmsg, journal or a path)");
        String boot = values.token(BOOT_ID, 128);
        this.bootIdDropped = boot == null && state.get(BOOT_ID) != null;
        this.bootId = boot;
        this.seq = values.number(SEQ, 0, Long.MAX_VALUE, -1);
        this.journal = values.token(JOURNAL, TEXT_MAX);
        this.file = FILE.load(values);
    }

    /** What was wrong in the state, one sentence each, for the report. */
    List<String> warnings() {
        return values.warnings();
    }

    String source() {
        return source;
    }

    /** The boot id stored with the cursor, null when none (or an invalid one was dropped). */
    String bootId() {
        return bootId;
    }

    /** An invalid boot id was dropped: a kmsg sequence number or journal cursor cannot be trusted to belong to this boot. */
    boolean bootIdDropped() {
        return bootIdDropped;
    }

    /** The last kmsg sequence number read, -1 for none. */
    long seq() {
        return seq;
    }

    String journalCursor() {
        return journal;
    }

    /** Null when there is none, or when what identifies the file (device, inode, offset) was invalid. */
    LogFile.Position file() {
        return file;
    }

    void saveCommon(String source, String bootId) {
        state.put(SOURCE, source);
        if (bootId != null) {
            state.put(BOOT_ID, bootId);
        }
    }

    void saveSeq(long seq) {
        state.put(SEQ, seq);
    }

    void saveJournalCursor(String cursor) {
        state.put(JOURNAL, cursor);
    }

    /** A journal cursor journalctl refused: dropped, said, and the journal read without it. */
    void dropJournalCursor(String why) {
        state.remove(JOURNAL);
        values.warn("state value " + JOURNAL + " was refused by journalctl (" + why + "); reset it");
    }

    /** A kmsg sequence number past the newest record: it cannot be this boot's, and kept it would skip every record. */
    void dropSeq(long newest) {
        state.remove(SEQ);
        values.warn("state value " + SEQ + " = " + seq + " is past the newest kernel record (" + newest + "); reset it");
    }

    void saveFile(LogFile.Position p) {
        FILE.save(state, p);
    }
}
