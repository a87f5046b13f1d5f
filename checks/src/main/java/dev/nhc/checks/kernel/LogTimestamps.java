package dev.nhc.checks.kernel;

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
 * Splits a kernel log text line into its timestamp and message. Understands the forms admins meet:
 * <ul>
 * <li>dmesg: {@code [171167.620236] msg} (seconds since boot)</li>
 * <li>dmesg -T: {@code [Sun Feb 23 16:24:18 2025] msg} (local time)</li>
 * <li>dmesg --time-format iso: {@code 2024-11-15T05:39:15,491363+00:00 msg}</li>
 * <li>RFC 3339 (rsyslog, journalctl -o short-iso[-precise]): {@code 2024-11-15T05:39:15.491363Z host kernel: msg},
 *     offsets as {@code +00:00} or {@code +0000}</li>
 * <li>syslog: {@code Nov 15 05:39:15 host kernel: msg} (no year: the latest year that is not in the future)</li>
 * <li>any of these after dmesg --decode's {@code kern  :warn  : } prefix.</li>
 * </ul>
 * Lines matching none are returned with {@code timestampParsed == false} so that callers count them.
 */
public final class LogTimestamps {
    private static final Pattern DECODE_PREFIX = Pattern.compile("^[a-z]+\\s*:[a-z]+\\s*: ");
    private static final Pattern UPTIME = Pattern.compile("^\\[\\s*(\\d+)\\.(\\d+)\\]\\s?");
    private static final Pattern CTIME = Pattern.compile("^\\[([A-Z][a-z]{2} [A-Z][a-z]{2} [ \\d]\\d \\d\\d:\\d\\d:\\d\\d \\d{4})\\]\\s?");
    private static final Pattern ISO = Pattern.compile(
            "^(\\d{4}-\\d\\d-\\d\\d[T ]\\d\\d:\\d\\d:\\d\\d)(?:[.,](\\d{1,9}))?(Z|[+-]\\d\\d:?\\d\\d)?\\s");
    private static final Pattern SYSLOG = Pattern.compile("^([A-Z][a-z]{2}) ([ \\d]\\d) (\\d\\d:\\d\\d:\\d\\d) ");
    /** "host kernel: " after an ISO or syslog timestamp (rsyslog, journalctl). */
    private static final Pattern HOST_KERNEL = Pattern.compile("^\\S+ kernel: ");
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
        String rest = line;
        Matcher m;
        if (!rest.isEmpty() && rest.charAt(0) >= 'a' && rest.charAt(0) <= 'z') {
            m = DECODE_PREFIX.matcher(rest);
            if (m.find()) {
                rest = rest.substring(m.end());
            }
        }
        if (rest.startsWith("[")) {
            KernelLogLine fast = uptime(position, rest);
            if (fast != null) {
                return fast;
            }
            m = UPTIME.matcher(rest);
            if (m.find()) {
                double up = Double.parseDouble(m.group(1) + "." + m.group(2));
                return new KernelLogLine(position, null, up, rest.substring(m.end()), true);
            }
            m = CTIME.matcher(rest);
            if (m.find()) {
                try {
                    Instant t = LocalDateTime.parse(m.group(1), CTIME_FORMAT).atZone(zone).toInstant();
                    return new KernelLogLine(position, t, null, rest.substring(m.end()), true);
                } catch (DateTimeParseException e) {
                    return unparsed(position, line);
                }
            }
            return unparsed(position, line);
        }
        if (!rest.isEmpty() && Character.isDigit(rest.charAt(0))) {
            m = ISO.matcher(rest);
            if (m.find()) {
                Instant t = iso(m.group(1), m.group(2), m.group(3));
                if (t == null) {
                    return unparsed(position, line);
                }
                return new KernelLogLine(position, t, null, afterHost(rest.substring(m.end())), true);
            }
            return unparsed(position, line);
        }
        m = SYSLOG.matcher(rest);
        if (m.find()) {
            Instant t = syslog(m.group(1), m.group(2).trim(), m.group(3));
            if (t != null) {
                return new KernelLogLine(position, t, null, afterHost(rest.substring(m.end())), true);
            }
        }
        return unparsed(position, line);
    }

    /** "[171167.620236] msg" without a regex: the common dmesg form, on every line of a large log. */
    private static KernelLogLine uptime(long position, String s) {
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
        return new KernelLogLine(position, null, whole + (double) frac / scale, s.substring(i), true);
    }

    private static KernelLogLine unparsed(long position, String line) {
        return new KernelLogLine(position, null, null, line, false);
    }

    /** Drops "host kernel: " and a kernel "[  12.345678] " stamp that syslog keeps inside the message. */
    private static String afterHost(String s) {
        Matcher m = HOST_KERNEL.matcher(s);
        if (m.find()) {
            s = s.substring(m.end());
            Matcher up = UPTIME.matcher(s);
            if (up.find()) {
                s = s.substring(up.end());
            }
        }
        return s;
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
