package dev.nhc.checks.kernel;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * One line of {@code journalctl -o json}: the fields that say who wrote an entry and when. The
 * underscore fields are journald's own ("trusted fields": a client cannot set them), so
 * {@code _TRANSPORT=kernel} is proof that the kernel logged the entry; {@code MESSAGE} is the
 * record's whole text, its line breaks kept (one record, however many lines it has). A MESSAGE
 * journald stored as bytes (not UTF-8, or control characters) comes as an array of numbers.
 */
record JournalEntry(String transport, String bootId, Long monotonicUsec, Long realtimeUsec, String message, String cursor) {
    /** What to ask journalctl for: the cursor and both timestamps come with every entry. */
    static final String OUTPUT_FIELDS = "MESSAGE,_TRANSPORT,_BOOT_ID";
    private static final JsonFactory JSON = new JsonFactory();

    boolean fromKernel() {
        return "kernel".equals(transport);
    }

    /** The entry on this line, or null when the line is not a JSON object. */
    static JournalEntry parse(String line) {
        if (line.isEmpty() || line.charAt(0) != '{') {
            return null;
        }
        String transport = null;
        String boot = null;
        Long mono = null;
        Long real = null;
        String message = null;
        String cursor = null;
        try (JsonParser p = JSON.createParser(line)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return null;
            }
            JsonToken t;
            while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken v = p.nextToken();
                switch (name) {
                    case "_TRANSPORT" -> transport = text(p, v);
                    case "_BOOT_ID" -> boot = text(p, v);
                    case "__MONOTONIC_TIMESTAMP" -> mono = number(text(p, v));
                    case "__REALTIME_TIMESTAMP" -> real = number(text(p, v));
                    case "__CURSOR" -> cursor = text(p, v);
                    case "MESSAGE" -> message = text(p, v);
                    default -> p.skipChildren();
                }
            }
            if (t != JsonToken.END_OBJECT) {
                return null;
            }
        } catch (IOException e) {
            return null;
        }
        return new JournalEntry(transport, boot, mono, real, message == null ? "" : escapeControls(message), cursor);
    }

    /** A string value, or the bytes of an array of numbers as (lenient) UTF-8, or null. */
    private static String text(JsonParser p, JsonToken v) throws IOException {
        if (v == JsonToken.VALUE_STRING) {
            return p.getText();
        }
        if (v == JsonToken.START_ARRAY) {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            while (p.nextToken() == JsonToken.VALUE_NUMBER_INT) {
                bytes.write(p.getIntValue());
            }
            return bytes.toString(StandardCharsets.UTF_8);
        }
        p.skipChildren();
        return null;
    }

    private static Long number(String s) {
        if (s == null || s.isEmpty() || s.length() > 19) {
            return null;
        }
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) < '0' || s.charAt(i) > '9') {
                return null;
            }
        }
        return Long.parseLong(s);
    }

    /**
     * Control characters (a line break inside a record among them) and backslashes as {@code \xNN},
     * as /dev/kmsg prints them: a record is one line of text whichever source it came from.
     */
    static String escapeControls(String s) {
        StringBuilder b = null;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x20 || c == 0x7f || c == '\\') {
                if (b == null) {
                    b = new StringBuilder(s.length() + 16).append(s, 0, i);
                }
                b.append(String.format(java.util.Locale.ROOT, "\\x%02x", (int) c));
            } else if (b != null) {
                b.append(c);
            }
        }
        return b == null ? s : b.toString();
    }
}
