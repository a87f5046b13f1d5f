package dev.nhc.checks.kernel;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where a pattern may look in a kernel record: at the start of its message text, never inside it.
 * The kernel copies text a local user chose into its own records — a segfaulting program's name and
 * file name ({@code show_signal_msg} and {@code print_vma_addr} in arch/x86/mm/fault.c:
 * "NAME[PID]: segfault at 0 ip … error 4 in FILE[…]"), a hung task's name — so "the line contains
 * NVRM: Xid" proves nothing, while the first words of a record are the kernel's or its driver's.
 *
 * <p>Except when they are a task's name: many records start with one ({@code comm}, at most 15
 * bytes, anything but NUL) followed by its pid — "NAME[PID]: segfault at", "NAME[PID]: unhandled
 * signal", "NAME (PID): …", "NAME invoked oom-killer", "NAME: page allocation failure". Such a
 * record is {@link #userLed user-led}: nothing is matched in it at all, whatever its first 15
 * characters say. (The same event always has a record of the kernel's own that patterns can match:
 * "Out of memory: Killed process …".) A record whose own prefix and a short task name fit in 15
 * characters ("traps: ab[12] general protection fault") is taken for user-led too: erring that way
 * loses a line about a user's program, never fails a node.
 */
public final class RecordText {
    /**
     * A task name (1 to 15 bytes; /dev/kmsg and dmesg print a byte that is not printable as
     * {@code \xNN}) followed by one of the forms the kernel prints after one.
     */
    private static final Pattern USER_LED = Pattern.compile(
            "(?:\\\\x[0-9a-fA-F]{2}|[^\\\\]){1,15}?"
                    + "(?:\\[\\d+\\]| \\(\\d+\\)| invoked oom-killer|: page allocation failure|: Corrupted page table)");

    private RecordText() {
    }

    /** The record starts with a task's name, which its user chose: no pattern may decide on it. */
    public static boolean userLed(String message) {
        return USER_LED.matcher(message).lookingAt();
    }

    /** Whether patterns may look at this line at all: the start of a record, and not one led by a task's name. */
    public static boolean decides(KernelLogLine line) {
        return line.startsRecord() && !userLed(line.message());
    }

    /** nhc's own fixed patterns (XIDs): a matcher that matched at the start of the record's text, or null. */
    public static Matcher at(Pattern pattern, KernelLogLine line) {
        if (!decides(line)) {
            return null;
        }
        Matcher m = pattern.matcher(line.message());
        return m.lookingAt() ? m : null;
    }
}
