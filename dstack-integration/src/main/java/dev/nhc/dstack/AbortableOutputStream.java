package dev.nhc.dstack;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;

/**
 * A response body that can be ended without a clean end. The JDK server ends an exchange by
 * closing its response stream; a chunked body then gets its last chunk, which a client takes for
 * a complete answer. After {@link #abort()}, closing throws instead, and the JDK server, on a
 * failed close, drops the connection: the client sees the response broke off.
 */
final class AbortableOutputStream extends FilterOutputStream {
    private volatile boolean aborted;

    AbortableOutputStream(OutputStream response) {
        super(response);
    }

    void abort() {
        aborted = true;
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        if (aborted) {
            throw new IOException("response aborted");
        }
        out.write(b, off, len);
    }

    @Override
    public void flush() throws IOException {
        if (aborted) {
            throw new IOException("response aborted");
        }
        out.flush();
    }

    @Override
    public void close() throws IOException {
        if (aborted) {
            throw new IOException("response aborted: the upstream broke off");
        }
        out.close();
    }
}
