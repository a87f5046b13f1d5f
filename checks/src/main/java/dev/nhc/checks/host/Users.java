package dev.nhc.checks.host;

import dev.nhc.probe.ProbeContext;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;

/** User names to uids through /etc/passwd under the system root (nss lookups would bypass the test tree). */
final class Users {
    private Users() {
    }

    /** The uid of a user name, or the number itself when {@code user} is numeric; null when unknown. */
    static Long uidOf(ProbeContext ctx, String user) {
        if (user.chars().allMatch(Character::isDigit) && !user.isEmpty()) {
            return Long.parseLong(user);
        }
        try {
            for (String line : Files.readAllLines(ctx.sys("/etc/passwd"), StandardCharsets.UTF_8)) {
                String[] f = line.split(":", -1);
                if (f.length > 2 && f[0].equals(user)) {
                    return Long.parseLong(f[2]);
                }
            }
        } catch (IOException | NumberFormatException e) {
            return null;
        }
        return null;
    }
}
