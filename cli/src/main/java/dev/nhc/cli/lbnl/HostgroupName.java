package dev.nhc.cli.lbnl;

import java.util.Collection;

/**
 * The name of the hostgroup an LBNL host match becomes, read from the match itself: {@code shas*}
 * is {@code shas}, {@code x*.nifl.fysik.dtu.dk} is {@code x-nifl-fysik-dtu-dk},
 * {@code /^s(has|gpu)/} is {@code s-has-gpu}, {@code {n[1-10],gpu01}} is {@code n1-10-gpu01}.
 */
final class HostgroupName {
    private static final int MAX = 40;

    private HostgroupName() {
    }

    static String of(String target) {
        String s = target.replaceFirst("^!", "").replaceAll("[^A-Za-z0-9]+", "-").replaceAll("^-+|-+$", "")
                .replaceAll("(?<=[A-Za-z])-(?=[0-9])", "");
        if (s.length() > MAX) {
            s = s.substring(0, MAX).replaceAll("-+$", "");
        }
        if (s.isEmpty() || !Character.isLetter(s.charAt(0))) {
            s = "hosts" + (s.isEmpty() ? "" : "-" + s);
        }
        return s;
    }

    /** The name, with -2, -3… when another match already has it. */
    static String unique(String target, Collection<String> taken) {
        String base = of(target);
        String name = base;
        for (int i = 2; taken.contains(name); i++) {
            name = base + "-" + i;
        }
        return name;
    }
}
