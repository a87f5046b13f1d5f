package dev.nhc.checks.capture;

import java.util.regex.Pattern;

/**
 * The command line an admin pastes above a tool's output ({@code $ nvidia-smi -q},
 * {@code ubuntu@node:~$ dcgmi diag -r 2}, {@code [root@gpu-2-12 ~]# ibstat}, or the command
 * alone): not output, so not a line a parser should stop at.
 */
public final class ShellPrompt {
    private static final Pattern COMMAND = Pattern.compile(
            "^\\s*(?:\\S*@\\S*)?(?:\\[[^]]*])?\\s*[$#%>]\\s*(?:sudo\\s+)?(?:\\S*/)?(?:nvidia-smi|dcgmi|ibstat|ibstatus|dmesg|journalctl|cat|grep|tail|less)\\b.*$");
    /** The command alone, without a prompt ("nvidia-smi", "dcgmi diag -r 2"): no tool nhc reads prints its own name so. */
    private static final Pattern BARE = Pattern.compile("^\\s*(?:sudo\\s+)?(?:nvidia-smi|dcgmi|ibstat)(?:\\s+-[^\\s].*|\\s+(?:diag|health|nvlink|-q)\\b.*|\\s*)$");

    private ShellPrompt() {
    }

    /** Whether {@code line} is a shell prompt followed by the command that printed what comes next. */
    public static boolean isCommand(String line) {
        return COMMAND.matcher(line).matches() || BARE.matcher(line).matches();
    }
}
