package dev.nhc.daemon;

/** Settings every JDK HTTP server of the daemon needs (the status endpoints, dstack's proxy). */
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
    }
}
