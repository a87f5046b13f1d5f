package dev.nhc.engine.files;

import java.io.IOException;

/** Running as root, nhc will not use this path: someone other than root can change what it leads to. The message says who and where. */
public final class UntrustedPathException extends IOException {
    private static final long serialVersionUID = 1L;

    public UntrustedPathException(String why) {
        super(why);
    }
}
