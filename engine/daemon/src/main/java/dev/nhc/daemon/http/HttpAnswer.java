package dev.nhc.daemon.http;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * A complete answer {@link HttpFront} writes itself: status, content type, extra headers and the
 * body, already in memory. One body may be shared by many connections (a burst of scrapes gets
 * one rendering); each connection gets its own status line and headers.
 */
public record HttpAnswer(int status, String reason, String contentType, Map<String, String> headers, byte[] body) {

    public static HttpAnswer json(int status, String reason, byte[] body) {
        return new HttpAnswer(status, reason, "application/json", Map.of(), body);
    }

    public HttpAnswer withHeader(String name, String value) {
        java.util.LinkedHashMap<String, String> h = new java.util.LinkedHashMap<>(headers);
        h.put(name, value);
        return new HttpAnswer(status, reason, contentType, Map.copyOf(h), body);
    }

    /** The status line and headers; {@code close}: the connection ends after this answer. */
    ByteBuffer head(String date, boolean close) {
        StringBuilder b = new StringBuilder(160).append("HTTP/1.1 ").append(status).append(' ').append(reason).append("\r\n");
        if (contentType != null) {
            b.append("Content-Type: ").append(contentType).append("\r\n");
        }
        headers.forEach((k, v) -> b.append(k).append(": ").append(v).append("\r\n"));
        b.append("Content-Length: ").append(body.length).append("\r\nDate: ").append(date).append("\r\n");
        if (close) {
            b.append("Connection: close\r\n");
        }
        return ByteBuffer.wrap(b.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1));
    }
}
