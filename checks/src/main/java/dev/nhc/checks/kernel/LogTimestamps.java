package dev.nhc.checks.kernel;

import dev.nhc.checks.kernel.KernelLogLine.Origin;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Splits a kernel log text line into its header (timestamp; host and tag in a syslog file) and its
 * message, and says from the header who wrote it ({@link KernelLogLine.Origin}). Understands the
 * forms admins meet:
 * <ul>
 * <li>dmesg: {@code [171167.620236] msg} (seconds since boot)</li>
 * <li>dmesg -T: {@code [Sun Feb 23 16:24:18 2025] msg} (local time)</li>
 * <li>dmesg --time-format iso: {@code 2024-11-15T05:39:15,491363+00:00 msg} (a comma before the microseconds)</li>
 * <li>a syslog file, RFC 3339 time (rsyslog's high-precision format, journalctl -o short-iso[-precise]):
 *     {@code 2024-11-15T05:39:15.491363Z host kernel: msg}, offsets as {@code +00:00} or {@code +0000}</li>
 * <li>a syslog file, traditional format: {@code Nov 15 05:39:15 host kernel: msg} (no year: the latest
 *     year that is not in the future)</li>
 * <li>any of these after dmesg --decode's {@code kern  :warn  : } prefix, or dmesg --raw's {@code <6>}</li>
 * <li>/dev/kmsg records as {@code cat /dev/kmsg} prints them: {@code 6,338,797028921,-;msg}</li>
 * </ul>
 * A dmesg line is a record of the kernel's ring buffer ({@code KERNEL}; with {@code --decode},
 * {@code --raw} or a kmsg prefix, only facility {@code kern}, 0); a syslog line is the kernel's only when its tag is {@code kernel:}
 * (rsyslog's tag for what it read from the kernel; a kernel stamp "[ 12.345678]" after it is the
 * line's uptime), any other tag is {@code OTHER}. A line that starts with blanks is a further line
 * of the record before it ({@code CONTINUATION}: dmesg and journalctl indent them). Lines with a
 * header nhc does not know are {@code UNKNOWN}, with the whole line as message.
 */
public final class LogTimestamps {
    private static final Pattern DECODE_PREFIX = Pattern.compile("^([a-z]+)\\s*:[a-z]+\\s*: ");
    /** dmesg --raw: "<prio>" before the stamp, the facility in its upper bits. */
    private static final Pattern RAW_PREFIX = Pattern.compile("^<(\\d{1,4})>");
    /** A /dev/kmsg record: "prio,seq,usec,flags[,…];text". */
    private static final Pattern KMSG = Pattern.compile("^(\\d{1,4}),\\d{1,19},(\\d{1,19}),[^;]*;");
    private static final Pattern UPTIME = Pattern.compile("^\\[\\s*(\\d+)\\.(\\d+)\\]\\s?");
    private static final Pattern CTIME = Pattern.compile("^\\[([A-Z][a-z]{2} [A-Z][a-z]{2} [ \\d]\\d \\d\\d:\\d\\d:\\d\\d \\d{4})\\]\\s?");
    private static final Pattern ISO = Pattern.compile(
            "^(\\d{4}-\\d\\d-\\d\\d[T ]\\d\\d:\\d\\d:\\d\\d)(?:([.,])(\\d{1,9}))?(Z|[+-]\\d\\d:?\\d\\d)?\\s");
    private static final Pattern SYSLOG = Pattern.compile("^([A-Z][a-z]{2}) ([ \\d]\\d) (\\d\\d:\\d\\d:\\d\\d) ");
    /** "host kernel: " after a syslog timestamp: what rsyslog writes for the kernel's records. */
    private static final Pattern HOST_KERNEL = Pattern.compile("^\\S+ kernel: ");
    /** "host tag: " or "host tag[pid]: ": another program's line. */
    private static final Pattern HOST_TAG = Pattern.compile("^\\S+ [^\\s\\[\\]]+(?:\\[\\d+\\])?: ");
    private static final DateTimeFormatter CTIME_FORMAT = DateTimeFormatter.ofPattern("EEE MMM ppd HH:mm:ss yyyy", Locale.ROOT);
    private static final String[] MONTHS = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

    private final ZoneId zone;
    private final Instant now;

    /** {@code zone}: for forms without an offset (dmesg -T, syslog); {@code now}: to pick the year of syslog lines. */
    public LogTimestamps(ZoneId zone, Instant now) {
        this.zone = zone;
        this.now = now;
    }

    public KernelLogLine parse(long position, String line) {
        if (!line.isEmpty() && (line.charAt(0) == ' ' || line.charAt(0) == '\t')) {
            return new KernelLogLine(position, null, null, line.strip(), Origin.CONTINUATION);
        }
        String rest = line;
        Origin dmesg = Origin.KERNEL;
        Matcher m;
        if (!rest.isEmpty() && rest.charAt(0) >= 'a' && rest.charAt(0) <= 'z') {
            m = DECODE_PREFIX.matcher(rest);
            if (m.find()) {
                dmesg = m.group(1).equals("kern") ? Origin.KERNEL : Origin.OTHER;
                rest = rest.substring(m.end());
            }
        } else if (rest.startsWith("<")) {
            m = RAW_PREFIX.matcher(rest);
            if (m.find()) {
                dmesg = facility(m.group(1));
                rest = rest.substring(m.end());
            }
        }
        if (rest.startsWith("[")) {
            KernelLogLine fast = uptime(position, rest, dmesg);
            if (fast != null) {
                return fast;
            }
            m = UPTIME.matcher(rest);
            if (m.find()) {
                double up = Double.parseDouble(m.group(1) + "." + m.group(2));
                return new KernelLogLine(position, null, up, rest.substring(m.end()), dmesg);
            }
            m = CTIME.matcher(rest);
            if (m.find()) {
                try {
                    Instant t = LocalDateTime.parse(m.group(1), CTIME_FORMAT).atZone(zone).toInstant();
                    return new KernelLogLine(position, t, null, rest.substring(m.end()), dmesg);
                } catch (DateTimeParseException e) {
                    return unknown(position, line);
                }
            }
            return unknown(position, line);
        }
        if (!rest.isEmpty() && Character.isDigit(rest.charAt(0))) {
            m = KMSG.matcher(rest);
            if (m.find()) {
                double up = Long.parseLong(m.group(2)) / 1e6;
                return new KernelLogLine(position, null, up, rest.substring(m.end()), facility(m.group(1)));
            }
            m = ISO.matcher(rest);
            if (m.find()) {
                Instant t = iso(m.group(1), m.group(3), m.group(4));
                if (t == null) {
                    return unknown(position, line);
                }
                if (",".equals(m.group(2))) {
                    return new KernelLogLine(position, t, null, rest.substring(m.end()), dmesg); // dmesg's own ISO form
                }
                return tagged(position, t, rest.substring(m.end()), line);
            }
            return unknown(position, line);
        }
        m = SYSLOG.matcher(rest);
        if (m.find()) {
            Instant t = syslog(m.group(1), m.group(2).trim(), m.group(3));
            if (t != null) {
                return tagged(position, t, rest.substring(m.end()), line);
            }
        }
        return unknown(position, line);
    }

    /** "[171167.620236] msg" without a regex: the common dmesg form, on every line of a large log. */
    private static KernelLogLine uptime(long position, String s, Origin origin) {
        int i = 1;
        int n = s.length();
        while (i < n && s.charAt(i) == ' ') {
            i++;
        }
        long whole = 0;
        int digits = 0;
        while (i < n && Character.isDigit(s.charAt(i)) && digits < 12) {
            whole = whole * 10 + (s.charAt(i++) - '0');
            digits++;
        }
        if (digits == 0 || i >= n || s.charAt(i) != '.') {
            return null;
        }
        i++;
        long frac = 0;
        long scale = 1;
        int fd = 0;
        while (i < n && Character.isDigit(s.charAt(i)) && fd < 9) {
            frac = frac * 10 + (s.charAt(i++) - '0');
            scale *= 10;
            fd++;
        }
        if (fd == 0 || i >= n || s.charAt(i) != ']') {
            return null;
        }
        i++;
        if (i < n && s.charAt(i) == ' ') {
            i++;
        }
        return new KernelLogLine(position, null, whole + (double) frac / scale, s.substring(i), origin);
    }

    /** A syslog priority's facility: 0 is the kernel's. */
    private static Origin facility(String prio) {
        return Integer.parseInt(prio) >> 3 == 0 ? Origin.KERNEL : Origin.OTHER;
    }

    private static KernelLogLine unknown(long position, String line) {
        return new KernelLogLine(position, null, null, line, Origin.UNKNOWN);
    }

    /**
     * After a syslog timestamp: "host kernel: [ 12.345678] msg" is the kernel's (the stamp, which
     * rsyslog may keep, is its uptime); "host tag: msg" another program's; anything else unknown.
     */
    private static KernelLogLine tagged(long position, Instant t, String afterTime, String line) {
        Matcher m = HOST_KERNEL.matcher(afterTime);
        if (m.find()) {
            String msg = afterTime.substring(m.end());
            Double up = null;
            if (msg.startsWith("[")) {
                KernelLogLine stamped = uptime(position, msg, Origin.KERNEL);
                if (stamped != null) {
                    up = stamped.uptimeSeconds();
                    msg = stamped.message();
                }
            }
            return new KernelLogLine(position, t, up, msg, Origin.KERNEL);
        }
        m = HOST_TAG.matcher(afterTime);
        if (m.find()) {
            return new KernelLogLine(position, t, null, afterTime.substring(m.end()), Origin.OTHER);
        }
        return new KernelLogLine(position, t, null, line, Origin.UNKNOWN);
    }

    private Instant iso(String dateTime, String fraction, String offset) {
        StringBuilder b = new StringBuilder(dateTime.replace(' ', 'T'));
        if (fraction != null) {
            b.append('.').append(fraction);
        }
        try {
            if (offset == null) {
                return LocalDateTime.parse(b).atZone(zone).toInstant();
            }
            if (offset.length() == 5) {
                offset = offset.substring(0, 3) + ":" + offset.substring(3);
            }
            return OffsetDateTime.parse(b + offset).toInstant();
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    private Instant syslog(String month, String day, String time) {
        int mon = -1;
        for (int i = 0; i < MONTHS.length; i++) {
            if (MONTHS[i].equals(month)) {
                mon = i + 1;
            }
        }
        if (mon < 0) {
            return null;
        }
        int year = now.atZone(zone).getYear();
        try {
            String text = String.format(Locale.ROOT, "%04d-%02d-%02dT%s", year, mon, Integer.parseInt(day), time);
            Instant t = LocalDateTime.parse(text).atZone(zone).toInstant();
            // Syslog has no year: a date more than a day ahead of now belongs to last year (December read in January).
            if (t.isAfter(now.plusSeconds(86_400))) {
                text = String.format(Locale.ROOT, "%04d-%02d-%02dT%s", year - 1, mon, Integer.parseInt(day), time);
                t = LocalDateTime.parse(text).atZone(zone).toInstant();
            }
            return t;
        } catch (DateTimeParseException | NumberFormatException e) {
            return null;
        }
    }
}
