package dev.nhc.daemon;

/** Settings every JDK HTTP server of the daemon needs (the one behind dstack's proxy, which gets its relayed connections). */
public final class JdkHttpServers {
    private JdkHttpServers() {
    }

    /** Read once per JVM by the JDK's server: set before the first server is created. */
    public static void defaults() {
        // Without a limit a client that never finishes its headers holds a worker forever.
        if (System.getProperty("sun.net.httpserver.maxReqTime") == null) {
            System.setProperty("sun.net.httpserver.maxReqTime", "30");
        }
        // Without TCP_NODELAY the server sends headers and body as two segments and Nagle holds the
        // second until the client's delayed ACK: ~40 ms on every keep-alive request.
        if (System.getProperty("sun.net.httpserver.nodelay") == null) {
            System.setProperty("sun.net.httpserver.nodelay", "true");
        }
        // Past 200 idle keep-alive connections (the JDK's default) each finished exchange closes its
        // connection, and a busy client reconnects for every request.
        if (System.getProperty("sun.net.httpserver.maxIdleConnections") == null) {
            System.setProperty("sun.net.httpserver.maxIdleConnections", "2048");
        }
    }
}
