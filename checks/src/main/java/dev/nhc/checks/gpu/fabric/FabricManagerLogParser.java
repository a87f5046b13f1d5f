package dev.nhc.checks.gpu.fabric;

import dev.nhc.checks.gpu.PciBusId;
import dev.nhc.checks.gpu.xid.SxidCatalogue;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.format.ResolverStyle;
import java.util.Locale;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds the errors in fabric manager log lines, in the forms {@code nv-fabricmanager} writes to
 * {@code /var/log/fabricmanager.log} (and, for the NVSwitch ones, to syslog too):
 *
 * <pre>
 * [Jul 23 2024 07:53:55] [ERROR] [tid 841] detected NVSwitch fatal error 20034 on fid 0 on NVSwitch pci bus id 00000000:86:00.0 physical id 3 port 33
 * [Jul 09 2024 18:14:07] [ERROR] [tid 12727] detected NVSwitch non-fatal error 12028 on fid 0 on NVSwitch pci bus id 00000000:86:00.0 physical id 3 port 61
 * ... detected NVSwitch fatal error 20034 on partition 2 NVSwitch pci bus id 00000000:86:00.0 physical id 3 port 33   (shared NVSwitch mode)
 * [Jul 19 2025 18:34:55] [ERROR] [tid 192] Fabric Manager detected GPU NVL Non Fatal error on :
 * gpuGuid : 0xb0cf0e0300e42e00
 * portNum : 61
 * errorCode : 0x02
 * </pre>
 *
 * The number after "error" is the NVSwitch's SXid; a GPU error's block of "key : value" lines
 * gives its GUID, port and errorCode. Other lines are not errors nhc judges. Times are the log's
 * local time, in {@code zone}: the system's unless given. The time zone data and the date format
 * are loaded only when an error's time is read, not on every run that finds no error.
 */
final class FabricManagerLogParser {
    private static final Pattern STAMP = Pattern.compile("^\\[([A-Z][a-z]{2} +\\d{1,2} \\d{4} \\d{1,2}:\\d{2}:\\d{2})\\]");
    private static final Pattern NVSWITCH = Pattern.compile("detected NVSwitch (non[- ]fatal|fatal) error (\\d+)(.*)$", Pattern.CASE_INSENSITIVE);
    private static final Pattern GPU = Pattern.compile("detected GPU NVL(?:ink)? (non[- ]fatal|fatal) error", Pattern.CASE_INSENSITIVE);
    private static final Pattern PCI = Pattern.compile("pci bus id ([0-9A-Fa-f]{1,8}:[0-9A-Fa-f]{1,2}:[0-9A-Fa-f]{1,2}(?:\\.[0-7])?)",
            Pattern.CASE_INSENSITIVE);
    private static final Pattern PHYSICAL_ID = Pattern.compile("physical id (\\d{1,9})", Pattern.CASE_INSENSITIVE);
    private static final Pattern PORT = Pattern.compile("\\bport (\\d{1,9})", Pattern.CASE_INSENSITIVE);
    private static final Pattern KEY_VALUE = Pattern.compile("^\\s*([A-Za-z][A-Za-z0-9]*)\\s*:\\s*(\\S.*?)\\s*$");
    private static final Pattern HEX_OR_NUMBER = Pattern.compile("0x[0-9A-Fa-f]{1,16}|\\d{1,19}");
    /** A GPU error's detail block is short; more "key : value" lines than this end it. */
    private static final int MAX_BLOCK_LINES = 32;

    private ZoneId zone;
    private final Consumer<FabricError> sink;
    private GpuBlock block;

    /** @param zone the log's time zone; null: the system's */
    FabricManagerLogParser(ZoneId zone, Consumer<FabricError> sink) {
        this.zone = zone;
        this.sink = sink;
    }

    /** Hands on the error a line completes, if any. */
    void line(String line) {
        if (block != null) {
            Matcher kv = KEY_VALUE.matcher(line);
            if (!line.startsWith("[") && kv.matches() && block.lines < MAX_BLOCK_LINES) {
                block.put(kv.group(1), kv.group(2));
                return;
            }
            finish();
        }
        Matcher sw = NVSWITCH.matcher(line);
        if (sw.find()) {
            String rest = sw.group(3);
            Matcher pci = PCI.matcher(rest);
            Long physical = number(PHYSICAL_ID, rest);
            String device = pci.find() ? PciBusId.normalize(pci.group(1)) : physical != null ? "physical id " + physical : "unknown NVSwitch";
            String stamp = stamp(line);
            // the fabric manager's own word, or NVIDIA's SXid catalogue where it is stricter (as for the kernel log's SXids)
            boolean fatal = isFatal(sw.group(1)) || sw.group(2).length() <= 9 && SxidCatalogue.get().fatal(Integer.parseInt(sw.group(2)), null);
            sink.accept(new FabricError(FabricError.Device.NVSWITCH, device, fatal, sw.group(2), physical,
                    number(PORT, rest), stamp, time(stamp)));
            return;
        }
        Matcher gpu = GPU.matcher(line);
        if (gpu.find()) {
            block = new GpuBlock(isFatal(gpu.group(1)), stamp(line));
        }
    }

    /** The end of the lines at hand: an open GPU error block is complete. */
    void finish() {
        if (block != null) {
            GpuBlock b = block;
            block = null;
            sink.accept(new FabricError(FabricError.Device.GPU, b.guid == null ? "unknown GPU" : b.guid, b.fatal, b.code, null, b.port,
                    b.stamp, time(b.stamp)));
        }
    }

    private static boolean isFatal(String word) {
        return word.toLowerCase(Locale.ROOT).equals("fatal");
    }

    private static Long number(Pattern p, String text) {
        Matcher m = p.matcher(text);
        return m.find() ? Long.parseLong(m.group(1)) : null;
    }

    private static String stamp(String line) {
        Matcher m = STAMP.matcher(line);
        return m.find() ? m.group(1).replaceAll(" +", " ") : null;
    }

    private Instant time(String stamp) {
        if (stamp == null) {
            return null;
        }
        if (zone == null) {
            zone = ZoneId.systemDefault();
        }
        try {
            return LocalDateTime.parse(stamp, StampFormat.FORMAT).atZone(zone).toInstant();
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    /** Built on first use (its month names load locale data). */
    private static final class StampFormat {
        static final DateTimeFormatter FORMAT = DateTimeFormatter.ofPattern("MMM d uuuu H:mm:ss", Locale.ROOT)
                .withResolverStyle(ResolverStyle.STRICT);
    }

    /** A GPU error's header line and the "key : value" lines under it. */
    private static final class GpuBlock {
        final boolean fatal;
        final String stamp;
        String guid;
        String code;
        Long port;
        int lines;

        GpuBlock(boolean fatal, String stamp) {
            this.fatal = fatal;
            this.stamp = stamp;
        }

        void put(String key, String value) {
            lines++;
            String v = value.strip();
            if (!HEX_OR_NUMBER.matcher(v).matches()) {
                return;     // only numbers are taken from the block; anything else is not a field nhc reads
            }
            switch (key) {
                case "gpuGuid" -> guid = v.toLowerCase(Locale.ROOT);
                case "errorCode" -> code = v.toLowerCase(Locale.ROOT);
                case "portNum" -> port = v.startsWith("0x") || v.length() > 9 ? null : Long.parseLong(v);
                default -> {
                }
            }
        }
    }
}
