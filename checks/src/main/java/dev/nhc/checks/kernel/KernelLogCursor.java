package dev.nhc.checks.kernel;

import dev.nhc.probe.ProbeState;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The kernel log reader's cursor as kept in the check's state (keys {@code log.*}), every value
 * checked on the way in. State may come from an older nhc, a hand edit or a damaged disk, and a
 * value out of range must never blind the reader: a head length of 300000000 once made every run
 * fail with "Java heap space" and miss the next XID. An invalid value is dropped and said in
 * {@link #warnings()}; the reader then goes on without it (identifies the file again, or starts
 * over), so the run still reads the new lines.
 *
 * <p>Keys: {@code log.source} and {@code log.boot_id} for every source; {@code log.seq} (kmsg);
 * {@code log.cursor} (journal); for a file {@code log.device}, {@code log.inode}, {@code log.size}
 * (at the last read), {@code log.offset}, and CRC-32s of the first bytes ({@code log.head_len},
 * {@code log.head_crc}) and of the bytes just before the offset ({@code log.tail_len},
 * {@code log.tail_crc}). {@code log.file_key} is nhc 0.1's "(dev=803,ino=1234)", read once and replaced.
 */
final class KernelLogCursor {
    static final String SOURCE = "log.source";
    static final String BOOT_ID = "log.boot_id";
    static final String SEQ = "log.seq";
    static final String JOURNAL = "log.cursor";
    static final String DEVICE = "log.device";
    static final String INODE = "log.inode";
    static final String SIZE = "log.size";
    static final String OFFSET = "log.offset";
    static final String HEAD_LEN = "log.head_len";
    static final String HEAD_CRC = "log.head_crc";
    static final String TAIL_LEN = "log.tail_len";
    static final String TAIL_CRC = "log.tail_crc";
    static final String LEGACY_FILE_KEY = "log.file_key";

    private static final long CRC_MAX = 0xFFFF_FFFFL;
    private static final int TEXT_MAX = 4096;
    /** What a boot id, a source or a journal cursor may hold: printable ASCII; UTF-8 paths are allowed in the source. */
    private static final Pattern TOKEN = Pattern.compile("[\\x21-\\x7e]+");
    private static final Pattern LEGACY_KEY = Pattern.compile("\\(dev=([0-9a-f]{1,16}),ino=([0-9]{1,19})\\)");

    /** Where a file was read up to, and what it looked like. Unknown numbers are -1. */
    record FilePosition(long device, long inode, long size, long offset, int headLen, long headCrc, int tailLen, long tailCrc) {
    }

    private final ProbeState state;
    private final List<String> warnings = new ArrayList<>();
    private final String source;
    private final String bootId;
    private final boolean bootIdDropped;
    private final long seq;
    private final String journal;
    private final FilePosition file;

    KernelLogCursor(ProbeState state) {
        this.state = state;
        this.source = text(SOURCE);
        String boot = token(BOOT_ID, 128);
        this.bootIdDropped = boot == null && state.get(BOOT_ID) != null;
        this.bootId = boot;
        this.seq = number(SEQ, 0, Long.MAX_VALUE, -1);
        this.journal = token(JOURNAL, TEXT_MAX);
        this.file = filePosition();
    }

    /** What was wrong in the state, one sentence each, for the report. */
    List<String> warnings() {
        return List.copyOf(warnings);
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
    FilePosition file() {
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
        warnings.add("state value " + JOURNAL + " was refused by journalctl (" + why + "); reset it");
    }

    /** A kmsg sequence number past the newest record: it cannot be this boot's, and kept it would skip every record. */
    void dropSeq(long newest) {
        state.remove(SEQ);
        warnings.add("state value " + SEQ + " = " + seq + " is past the newest kernel record (" + newest + "); reset it");
    }

    void saveFile(FilePosition p) {
        state.remove(LEGACY_FILE_KEY);
        state.put(DEVICE, p.device());
        state.put(INODE, p.inode());
        state.put(SIZE, p.size());
        state.put(OFFSET, p.offset());
        state.put(HEAD_LEN, (long) p.headLen());
        state.put(HEAD_CRC, p.headCrc());
        state.put(TAIL_LEN, (long) p.tailLen());
        state.put(TAIL_CRC, p.tailCrc());
    }

    private FilePosition filePosition() {
        long device = number(DEVICE, 0, Long.MAX_VALUE, -1);
        long inode = number(INODE, 0, Long.MAX_VALUE, -1);
        if (device < 0 && inode < 0 && state.get(INODE) == null && state.get(LEGACY_FILE_KEY) != null) {
            Object legacy = state.get(LEGACY_FILE_KEY);
            Matcher m = legacy instanceof String s ? LEGACY_KEY.matcher(s) : null;
            if (m != null && m.matches() && Long.parseUnsignedLong(m.group(1), 16) >= 0 && m.group(2).length() < 19) {
                device = Long.parseUnsignedLong(m.group(1), 16);
                inode = Long.parseLong(m.group(2));
            } else {
                invalid(LEGACY_FILE_KEY, legacy, "\"(dev=HEX,ino=N)\"");
            }
        }
        long size = number(SIZE, 0, Long.MAX_VALUE, -1);
        long offset = number(OFFSET, 0, Long.MAX_VALUE, -1);
        int headLen = (int) number(HEAD_LEN, 0, LogFile.CHECKSUM_BYTES, -1);
        long headCrc = number(HEAD_CRC, 0, CRC_MAX, -1);
        int tailLen = (int) number(TAIL_LEN, 0, LogFile.CHECKSUM_BYTES, -1);
        long tailCrc = number(TAIL_CRC, 0, CRC_MAX, -1);
        if (headLen < 0 || headCrc < 0) {
            headLen = -1;
            headCrc = -1;
        }
        if (tailLen < 0 || tailCrc < 0 || tailLen > offset) {
            tailLen = -1;
            tailCrc = -1;
        }
        if (device < 0 || inode < 0 || offset < 0) {
            return null;
        }
        return new FilePosition(device, inode, size, offset, headLen, headCrc, tailLen, tailCrc);
    }

    /** A whole number in min..max, else {@code none}; present but invalid also warns and removes the key. */
    private long number(String key, long min, long max, long none) {
        Object v = state.get(key);
        if (v == null) {
            return none;
        }
        if ((v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte)
                && ((Number) v).longValue() >= min && ((Number) v).longValue() <= max) {
            return ((Number) v).longValue();
        }
        invalid(key, v, "a whole number in " + min + ".." + max);
        return none;
    }

    /** Printable ASCII without spaces, at most {@code max} characters, else null (warned and removed when present). */
    private String token(String key, int max) {
        Object v = state.get(key);
        if (v == null) {
            return null;
        }
        if (v instanceof String s && s.length() <= max && TOKEN.matcher(s).matches()) {
            return s;
        }
        invalid(key, v, "printable text without spaces, at most " + max + " characters");
        return null;
    }

    /** Any text without control characters, at most {@link #TEXT_MAX} characters (a path, "kmsg", "journal"). */
    private String text(String key) {
        Object v = state.get(key);
        if (v == null) {
            return null;
        }
        if (v instanceof String s && !s.isEmpty() && s.length() <= TEXT_MAX && s.chars().noneMatch(Character::isISOControl)) {
            return s;
        }
        invalid(key, v, "a log source (kmsg, journal or a path)");
        return null;
    }

    private void invalid(String key, Object value, String expected) {
        state.remove(key);
        warnings.add("state value " + key + " = " + shown(value) + " is invalid (expected " + expected + "); reset it");
    }

    /** The value as the report may show it: short, one line. */
    private static String shown(Object value) {
        String s = value instanceof String ? '"' + (String) value + '"' : String.valueOf(value);
        StringBuilder b = new StringBuilder();
        s.codePoints().limit(60).forEach(cp -> b.appendCodePoint(Character.isISOControl(cp) ? '?' : cp));
        return s.codePointCount(0, s.length()) > 60 ? b + "…" : b.toString();
    }
}
