package dev.nhc.checks.logfile;

import dev.nhc.probe.ProbeState;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A log file's {@link LogFile.Position} as kept in a check's state, under a key prefix
 * ({@code log.} for the kernel log, {@code fmlog.} for the fabric manager's): {@code device},
 * {@code inode}, {@code size} (at the last read), {@code offset}, and CRC-32s of the first bytes
 * ({@code head_len}, {@code head_crc}) and of the bytes just before the offset ({@code tail_len},
 * {@code tail_crc}). Every value is checked on the way in ({@link StateValues}).
 *
 * <p>A legacy key holding nhc 0.1's "(dev=803,ino=1234)" (what Java prints for a Linux file key)
 * gives the device and inode when they are not stored; it is read once and replaced.
 */
public final class LogFileCursor {
    public static final String DEVICE = "device";
    public static final String INODE = "inode";
    public static final String SIZE = "size";
    public static final String OFFSET = "offset";
    public static final String HEAD_LEN = "head_len";
    public static final String HEAD_CRC = "head_crc";
    public static final String TAIL_LEN = "tail_len";
    public static final String TAIL_CRC = "tail_crc";

    private static final long CRC_MAX = 0xFFFF_FFFFL;
    private static final Pattern LEGACY_KEY = Pattern.compile("\\(dev=([0-9a-f]{1,16}),ino=([0-9]{1,19})\\)");

    private final String prefix;
    private final String legacyKey;
    private final boolean allOrNothing;

    private LogFileCursor(String prefix, String legacyKey, boolean allOrNothing) {
        this.prefix = prefix;
        this.legacyKey = legacyKey;
        this.allOrNothing = allOrNothing;
    }

    /**
     * Keys {@code prefix + "offset"} and so on; {@code legacyKey} (may be null) as said above. An
     * invalid checksum is dropped and the file still followed by device, inode and offset (the
     * other checksum, if any, still guards it).
     */
    public static LogFileCursor under(String prefix, String legacyKey) {
        return new LogFileCursor(prefix, legacyKey, false);
    }

    /** The same cursor, but any invalid value drops the whole position: the file is then read from its start. */
    public LogFileCursor allOrNothing() {
        return new LogFileCursor(prefix, legacyKey, true);
    }

    /** The state key of one of the position's values ({@code "offset"}…). */
    public String key(String name) {
        return prefix + name;
    }

    /** The stored position; null when there is none, or when what identifies the file (device, inode, offset) was invalid. */
    public LogFile.Position load(StateValues values) {
        int warningsBefore = values.warnings().size();
        long device = values.number(key(DEVICE), 0, Long.MAX_VALUE, -1);
        long inode = values.number(key(INODE), 0, Long.MAX_VALUE, -1);
        Object legacy = legacyKey == null ? null : values.state().get(legacyKey);
        if (device < 0 && inode < 0 && legacy != null) {
            Matcher m = legacy instanceof String s ? LEGACY_KEY.matcher(s) : null;
            if (m != null && m.matches() && Long.parseUnsignedLong(m.group(1), 16) >= 0 && m.group(2).length() < 19) {
                device = Long.parseUnsignedLong(m.group(1), 16);
                inode = Long.parseLong(m.group(2));
            } else {
                values.invalid(legacyKey, legacy, "\"(dev=HEX,ino=N)\"");
            }
        }
        long size = values.number(key(SIZE), 0, Long.MAX_VALUE, -1);
        long offset = values.number(key(OFFSET), 0, Long.MAX_VALUE, -1);
        int headLen = (int) values.number(key(HEAD_LEN), 0, LogFile.CHECKSUM_BYTES, -1);
        long headCrc = values.number(key(HEAD_CRC), 0, CRC_MAX, -1);
        int tailLen = (int) values.number(key(TAIL_LEN), 0, LogFile.CHECKSUM_BYTES, -1);
        long tailCrc = values.number(key(TAIL_CRC), 0, CRC_MAX, -1);
        if (headLen < 0 || headCrc < 0) {
            headLen = -1;
            headCrc = -1;
        }
        if (tailLen < 0 || tailCrc < 0 || tailLen > offset) {
            tailLen = -1;
            tailCrc = -1;
        }
        if (device < 0 || inode < 0 || offset < 0 || (allOrNothing && values.warnings().size() > warningsBefore)) {
            return null;
        }
        return new LogFile.Position(device, inode, size, offset, headLen, headCrc, tailLen, tailCrc);
    }

    public void save(ProbeState state, LogFile.Position p) {
        if (legacyKey != null) {
            state.remove(legacyKey);
        }
        state.put(key(DEVICE), p.device());
        state.put(key(INODE), p.inode());
        state.put(key(SIZE), p.size());
        state.put(key(OFFSET), p.offset());
        state.put(key(HEAD_LEN), (long) p.headLen());
        state.put(key(HEAD_CRC), p.headCrc());
        state.put(key(TAIL_LEN), (long) p.tailLen());
        state.put(key(TAIL_CRC), p.tailCrc());
    }
}
