package dev.nhc.checks.gpu.calls;

import java.util.List;

/** What a library that would not load says, in one line. */
public final class LoadFailure {
    private LoadFailure() {
    }

    /**
     * JNA's message is "Unable to load library 'X':" and then dlopen's reasons, one per line: the
     * first reason ("libX.so: cannot open shared object file: No such file or directory").
     */
    public static String firstReason(Throwable e) {
        List<String> lines = e.getMessage() == null ? List.of(e.toString()) : e.getMessage().lines().map(String::strip)
                .filter(l -> !l.isEmpty()).toList();
        return lines.size() > 1 && lines.get(0).endsWith(":") ? lines.get(1) : lines.isEmpty() ? e.toString() : lines.get(0);
    }
}
