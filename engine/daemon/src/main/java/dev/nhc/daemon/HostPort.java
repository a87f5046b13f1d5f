package dev.nhc.daemon;

import java.net.InetSocketAddress;

/** A "host:port" from the config; the place a bad one came from is named by the caller. */
public record HostPort(String host, int port) {

    /** Why {@code text} is not host:port, or null; for a config key's check. */
    public static String problem(String text) {
        try {
            parse(text);
            return null;
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }

    public static HostPort parse(String text) {
        int colon = text == null ? -1 : text.lastIndexOf(':');
        if (colon <= 0 || colon == text.length() - 1) {
            throw new IllegalArgumentException("'" + text + "' is not host:port (e.g. 127.0.0.1:10998)");
        }
        String host = text.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        try {
            int port = Integer.parseInt(text.substring(colon + 1));
            if (port < 0 || port > 65535) {
                throw new NumberFormatException();
            }
            return new HostPort(host, port);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + text + "' has no valid port number");
        }
    }

    public InetSocketAddress socketAddress() {
        return new InetSocketAddress(host, port);
    }

    public String uriAuthority() {
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }

    @Override
    public String toString() {
        return uriAuthority();
    }
}
