package dev.nhc.dstack;

import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * The parts of an HTTP/1.x request head that decide whether {@link ProxyFront} answers it itself:
 * method, target, version; {@code plain}: no body follows and nothing only a full server does is
 * asked for (Expect, Upgrade); {@code closeAfter}: the connection ends after the answer. A head it
 * cannot read plainly is left to the JDK server (parse returns null).
 */
record RequestHead(String method, String target, String version, boolean plain, boolean closeAfter) {

    /** The path of the target (no query), as sent. */
    String path() {
        int q = target.indexOf('?');
        return q < 0 ? target : target.substring(0, q);
    }

    /** Parses {@code len} bytes: the head without its final blank line. */
    static RequestHead parse(byte[] b, int len) {
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
        for (int i = 1; i < lines.length; i++) {
            String line = lines[i];
            int colon = line.indexOf(':');
            if (colon <= 0 || line.charAt(0) == ' ' || line.charAt(0) == '\t') {
                return null; // malformed, or an obsolete folded line: the JDK server decides
            }
            String name = line.substring(0, colon).trim().toLowerCase(Locale.ROOT);
            String value = line.substring(colon + 1).trim();
            switch (name) {
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
                    // not needed to answer a health request
                }
            }
        }
        if (lengths > 1) {
            return null;
        }
        return new RequestHead(request[0], request[1], version, plain, close);
    }
}
