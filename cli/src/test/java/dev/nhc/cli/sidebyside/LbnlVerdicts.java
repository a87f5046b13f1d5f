package dev.nhc.cli.sidebyside;

import java.util.ArrayList;
import java.util.List;

/**
 * What LBNL NHC did with each line of its config in one run with every check ({@code -a}) named as
 * it runs ({@code -v}): "Running check:  "TEXT"" starts a line's check, and an "ERROR:  nhc:  Health
 * check failed:" after it (until the next check starts) is that check failing. Lines for other
 * hosts do not run at all.
 */
final class LbnlVerdicts {
    /** One check LBNL NHC ran, in order: its text as the config gives it after the '||', and whether it failed. */
    record Ran(String check, boolean failed) {
    }

    private static final String RUNNING = "Running check:  \"";
    private static final String FAILED = "Health check failed:";

    private LbnlVerdicts() {
    }

    static List<Ran> parse(String output) {
        List<Ran> ran = new ArrayList<>();
        for (String line : output.split("\n")) {
            int at = line.indexOf(RUNNING);
            if (at >= 0 && line.endsWith("\"")) {
                ran.add(new Ran(line.substring(at + RUNNING.length(), line.length() - 1), false));
            } else if (line.contains(FAILED) && !ran.isEmpty()) {
                Ran last = ran.remove(ran.size() - 1);
                ran.add(new Ran(last.check(), true));
            }
        }
        return ran;
    }
}
