package dev.nhc.daemon.http;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The parts of an HTTP/1.x request head that {@link HttpFront} needs to answer it itself: method,
 * target, version, the header lines; {@code plain}: no body follows and nothing only a full server
 * does is asked for (Expect, Upgrade); {@code closeAfter}: the connection ends after the answer. A
 * head it cannot read plainly is left to the server behind, or refused (parse returns null).
 */
public record RequestHead(String method, String target, String version, boolean plain, boolean closeAfter, List<String[]> headers) {

    /** The path of the target (no query), as sent. */
    public String path() {
        int q = target.indexOf('?');
        return q < 0 ? target : target.substring(0, q);
    }

    /** The query string without its '?', or null. */
    public String query() {
        int q = target.indexOf('?');
        return q < 0 ? null : target.substring(q + 1);
    }

    /** The first value of a header, by its name in any case, or null. */
    public String header(String name) {
        for (String[] h : headers) {
            if (h[0].equalsIgnoreCase(name)) {
                return h[1];
            }
        }
        return null;
    }

    /** Every value of a header, in order. */
    public List<String> headers(String name) {
        List<String> out = new ArrayList<>();
        for (String[] h : headers) {
            if (h[0].equalsIgnoreCase(name)) {
                out.add(h[1]);
            }
        }
        return out;
    }

    /** Parses {@code len} bytes: the head without its final blank line. */
    public static RequestHead parse(byte[] b, int len) {
        String head = new String(b, 0, len, StandardCharsets.ISO_8859_1);
        String[] lines = head.split("\r\n", -1);
        String[] request = lines[0].split(" ", -1);
        if (request.length != 3 || request[0].isEmpty() || !request[1].startsWith("/")) {
            return null;
        }
        String version = request[2];
        if (!version.equals("HTTP/1.1") && !version.equals("HTTP/1.0")) {
            return null;
        }
        boolean plain = true;
        boolean close = version.equals("HTTP/1.0");
        int lengths = 0;
        List<String[]> headers = new ArrayList<>(lines.length - 1);
        for (int i = 1; i < lines.length; i++) {
            String line = lines[i];
            int colon = line.indexOf(':');
            if (colon <= 0 || line.charAt(0) == ' ' || line.charAt(0) == '\t') {
                return null; // malformed, or an obsolete folded line: not for a plain answer
            }
            String name = line.substring(0, colon).trim();
            String value = line.substring(colon + 1).trim();
            headers.add(new String[] {name, value});
            switch (name.toLowerCase(Locale.ROOT)) {
                case "content-length" -> {
                    lengths++;
                    if (!value.equals("0")) {
                        plain = false;
                    }
                }
                case "transfer-encoding", "expect", "upgrade" -> plain = false;
                case "connection" -> {
                    String v = value.toLowerCase(Locale.ROOT);
                    if (v.contains("close")) {
                        close = true;
                    } else if (v.contains("keep-alive")) {
                        close = false;
                    }
                }
                default -> {
                    // not needed to decide how to answer
                }
            }
        }
        if (lengths > 1) {
            return null;
        }
        return new RequestHead(request[0], request[1], version, plain, close, List.copyOf(headers));
    }
}
