package dev.nhc.text;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A regular expression from a config, applied with a bound on its work per text. Java's engine
 * backtracks: an admin's {@code (.*a){20}x} or {@code ((a+)+)\1} over a line a user shaped (a log
 * line, a file's contents, a command's output) can take longer than the age of the universe, or
 * overflow the stack, and the check would hang or die on the same line every run. Each match may
 * read at most {@link #budget(int)} characters of its text (counted as the engine reads them) and
 * take at most {@link #MAX_MILLIS} ms; past either it gives up, and the caller reports the text as
 * not judged rather than waiting. (The count alone is not enough: some searches do much work
 * per character read.)
 *
 * <p>The bound is linear in the text's length with a large constant: a pattern that reads each
 * character a few dozen times (alternations, anchored scans, a leading {@code .*} on lines of a
 * couple of KiB) never reaches it; nested quantifiers on a crafted line reach it within a fraction
 * of a second. Every Java regex feature stays available (no second dialect for admins to learn).
 */
public final class BoundedRegex {
    /** What a match over one text came to. */
    public enum Result {
        MATCH, NO_MATCH,
        /** The pattern read more than its budget of characters, or recursed too deep: the text is not judged. */
        GAVE_UP;

        public boolean matched() {
            return this == MATCH;
        }
    }

    /** Characters a match may read: a fixed allowance plus this many per character of the text. */
    static final long BASE_STEPS = 2_000_000;
    static final long STEPS_PER_CHAR = 100;
    /** Time a match may take, whatever it read: a backstop for searches that work hard between reads. */
    static final long MAX_MILLIS = 1000;
    /** Characters read between two looks at the clock. */
    private static final int CLOCK_EVERY = 4096;
    /** The bound in words, for messages. */
    public static final String BOUND = BASE_STEPS + " characters plus " + STEPS_PER_CHAR + " per character of the text, or "
            + MAX_MILLIS + " ms";

    private BoundedRegex() {
    }

    /**
     * {@code regex} compiled for {@link #find}: without a leading {@code .*} (or {@code .*?}), which
     * changes nothing about whether a search finds it, but makes the search quadratic in the line's
     * length ({@code .*PermitRootLogin} reads a 2 KiB line six million times).
     */
    public static Pattern forSearch(String regex, int flags) {
        boolean dotStar = regex.startsWith(".*") && !regex.startsWith(".*+");
        String rest = !dotStar ? regex : regex.startsWith(".*?") ? regex.substring(3) : regex.substring(2);
        return Pattern.compile(rest.isEmpty() ? regex : rest, flags);
    }

    /** The pattern anywhere in the text ({@link Matcher#find()}). */
    public static Result find(Pattern pattern, CharSequence text) {
        Counted in = new Counted(text);
        try {
            return pattern.matcher(in).find() ? Result.MATCH : Result.NO_MATCH;
        } catch (OutOfSteps | StackOverflowError e) {
            return Result.GAVE_UP;
        }
    }

    /** The pattern from the start of the text, not necessarily to its end ({@link Matcher#lookingAt()}). */
    public static Result lookingAt(Pattern pattern, CharSequence text) {
        Counted in = new Counted(text);
        try {
            return pattern.matcher(in).lookingAt() ? Result.MATCH : Result.NO_MATCH;
        } catch (OutOfSteps | StackOverflowError e) {
            return Result.GAVE_UP;
        }
    }

    /** How many characters a match over a text of {@code length} characters may read. */
    public static long budget(int length) {
        return BASE_STEPS + STEPS_PER_CHAR * length;
    }

    /** Thrown from inside the engine to end a match; carries no stack, it is never shown. */
    private static final class OutOfSteps extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private static final OutOfSteps INSTANCE = new OutOfSteps();

        private OutOfSteps() {
            super(null, null, false, false);
        }
    }

    /** The text, counting every character the engine reads (every path of java.util.regex reads through charAt). */
    private static final class Counted implements CharSequence {
        private final CharSequence text;
        private final long budget;
        private final long deadline;
        private long steps;

        Counted(CharSequence text) {
            this.text = text;
            this.budget = budget(text.length());
            this.deadline = System.nanoTime() + MAX_MILLIS * 1_000_000;
        }

        @Override
        public char charAt(int index) {
            if (++steps % CLOCK_EVERY == 0 && (steps > budget || System.nanoTime() - deadline > 0)) {
                throw OutOfSteps.INSTANCE;
            }
            return text.charAt(index);
        }

        @Override
        public int length() {
            return text.length();
        }

        @Override
        public CharSequence subSequence(int start, int end) {
            return text.subSequence(start, end);
        }

        @Override
        public String toString() {
            return text.toString();
        }
    }
}
