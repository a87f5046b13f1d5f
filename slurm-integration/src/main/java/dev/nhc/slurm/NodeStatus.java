package dev.nhc.slurm;

import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One node as {@code scontrol show node -o} describes it: the base state (IDLE, MIXED, DOWN…), the
 * flags after it (DRAIN, FAIL, NOT_RESPONDING…) and the reason without Slurm's "[user@time]" suffix.
 */
public record NodeStatus(String name, String base, Set<String> flags, String reason) {

    private static final Pattern NAME = Pattern.compile("(?:^|\\s)NodeName=(\\S+)");
    private static final Pattern STATE = Pattern.compile("(?:^|\\s)State=(\\S+)");
    private static final Pattern REASON = Pattern.compile("(?:^|\\s)Reason=(.*)$");
    private static final Pattern REASON_STAMP = Pattern.compile("^(.*?)\\s*\\[[^\\[\\]@]*@[^\\[\\]]*\\](.*)$");

    /** Base states slurmctld reports; everything else after the first '+' is a flag. */
    private static final Set<String> BASES = Set.of("UNKNOWN", "DOWN", "IDLE", "ALLOCATED", "ERROR", "MIXED", "FUTURE");

    public NodeStatus {
        flags = java.util.Collections.unmodifiableSet(new LinkedHashSet<>(flags)); // in Slurm's order, for logs as sinfo shows them
        reason = reason == null ? "" : reason;
    }

    /** Parses one line of {@code scontrol show node -o}; null when the line names no node. */
    public static NodeStatus parse(String line) {
        Matcher name = NAME.matcher(line);
        Matcher state = STATE.matcher(line);
        if (!name.find() || !state.find()) {
            return null;
        }
        Set<String> flags = new LinkedHashSet<>();
        String base = "UNKNOWN";
        boolean first = true;
        for (String token : state.group(1).toUpperCase(Locale.ROOT).split("\\+")) {
            // slurmctld marks a node it cannot reach with '*' on the state word ("IDLE*", "DOWN*+DRAIN").
            while (token.endsWith("*")) {
                flags.add("NOT_RESPONDING");
                token = token.substring(0, token.length() - 1);
            }
            if (token.isEmpty()) {
                continue;
            }
            if (first && BASES.contains(token)) {
                base = token;
            } else {
                flags.add(token);
            }
            first = false;
        }
        String reason = "";
        Matcher r = REASON.matcher(line.stripTrailing());
        if (r.find()) {
            reason = r.group(1);
            // "Reason=NHC: x [root@2026-11-22T04:05:06]" and possibly further fields after the stamp.
            Matcher stamp = REASON_STAMP.matcher(reason);
            if (stamp.matches()) {
                reason = stamp.group(1);
            }
            reason = reason.strip();
            if ("(null)".equals(reason) || "none".equals(reason)) {
                reason = "";
            }
        }
        return new NodeStatus(name.group(1), base, flags, reason);
    }

    public boolean has(String flag) {
        return flags.contains(flag);
    }

    public boolean drained() {
        return has("DRAIN");
    }

    public boolean failed() {
        return has("FAIL");
    }

    public boolean down() {
        return "DOWN".equals(base);
    }

    /** Out of service for any reason: drained, failing or down. */
    public boolean held() {
        return drained() || failed() || down();
    }

    /** The reason has nhc's shape under any config ({@link Reasons#isNhcs}); the circuit breaker counts these. */
    public boolean reasonIsNhc() {
        return Reasons.isNhcs(reason);
    }

    /**
     * Why nhc must not change this node's state at all right now, or null. Each of these states is
     * owned by another part of Slurm, and a DRAIN or RESUME from nhc would fight it.
     */
    public String leaveAloneBecause() {
        if (has("REBOOT_REQUESTED") || has("REBOOT_ISSUED")) {
            // A reboot is pending or under way (sinfo '@'/'^'); slurmctld sets the state after it, and nhc checks the rebooted node.
            return "a reboot is requested or under way";
        }
        for (String power : new String[] {"POWERING_UP", "POWERED_DOWN", "POWERING_DOWN", "POWER_DOWN", "POWER_UP"}) {
            if (has(power)) {
                // Power saving owns the node (sinfo '#', '~', '%', '!'); draining it would keep it from ever powering up.
                return "power saving has it " + power.toLowerCase(Locale.ROOT).replace('_', ' ');
            }
        }
        if (has("MAINTENANCE") || has("MAINT")) {
            // In a maintenance reservation (sinfo '$'): admins are working on it and expect it as they left it.
            return "it is in a maintenance reservation";
        }
        if ("FUTURE".equals(base)) {
            // Configured for later, not part of the cluster yet: nothing to drain.
            return "it is a FUTURE node";
        }
        if (down() && has("NOT_RESPONDING")) {
            // down*: slurmctld cannot reach slurmd; the node takes no work, and whether it comes back is Slurm's call.
            return "it is down and not responding";
        }
        return null;
    }

    /** As sinfo would show it, for logs: "IDLE+DRAIN 'reason'". */
    public String describe() {
        StringBuilder b = new StringBuilder(base);
        flags.forEach(f -> b.append('+').append(f));
        if (!reason.isEmpty()) {
            b.append(" (reason '").append(reason).append("')");
        }
        return b.toString();
    }
}
