package dev.nhc.checks.dcgm;

import dev.nhc.checks.dcgm.DcgmHealthReport.Incident;
import dev.nhc.checks.dcgm.DcgmJson.DcgmOutputException;
import dev.nhc.model.Entity;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code dcgmi health -c} without {@code -j}: the tree dcgmi draws (DCGM 2.2 and later), one level
 * per "->" step of three columns, the messages in rows of their own under their system:
 *
 * <pre>
 * | Overall Health            | Warning                                                  |
 * | GPU                       |                                                          |
 * | -> 0                      | Warning                                                  |
 * |    -> Errors              |                                                          |
 * |       -> PCIe system      | Warning                                                  |
 * |                           | Detected more than 8 PCIe replays per minute for GPU 0 : |
 * |                           |  13                                                      |
 * </pre>
 *
 * and the older layout, {@code | GPU ID: 0 | Warning |} followed by {@code | | PCIe system:
 * Warning - Detected … |}. What it holds becomes the same report as the JSON.
 */
final class DcgmHealthTable {
    private static final Pattern ROW = Pattern.compile("^\\|([^|]*)\\|(.*)\\|\\s*$");
    private static final Pattern OVERALL_OLD = Pattern.compile("^\\|\\s*Overall Health:?\\s+(\\S[^|]*?)\\s*\\|\\s*$");
    private static final Pattern ENTITY_OLD = Pattern.compile("^(GPU|Switch|NvSwitch|CPU) ID:\\s*(\\d+)$");
    private static final Pattern SYSTEM_OLD = Pattern.compile("^([A-Za-z ]+? system|Driver): (Healthy|Warning|Failure|Internal error)(?: - (.*))?$");

    private DcgmHealthTable() {
    }

    /** Whether the health output is dcgmi's text table rather than JSON. */
    static boolean isTable(String text) {
        return DcgmDiagTable.isTable(text) && text.contains("Health");
    }

    /** The system being read: its entity, name, health and the message rows under it. */
    private static final class Reading {
        Entity entity;
        String system;
        String health;
        final StringBuilder message = new StringBuilder();

        /** Ends the system being read, if any, as an incident. */
        void end(List<Incident> incidents) {
            if (entity != null && system != null && health != null) {
                incidents.add(new Incident(entity, system, health, message.toString().strip()));
            }
            system = null;
            health = null;
            message.setLength(0);
        }

        void start(String name, String result, String text) {
            system = name;
            health = result;
            message.append(text == null ? "" : text.strip());
        }
    }

    static DcgmHealthReport parse(String text, String what) throws DcgmOutputException {
        String overall = null;
        List<Incident> incidents = new ArrayList<>();
        String group = "GPU";
        Reading r = new Reading();
        for (String raw : text.split("\n")) {
            String line = raw.stripTrailing();
            Matcher o = OVERALL_OLD.matcher(line);
            if (o.matches() && overall == null) {
                overall = o.group(1).strip();
                continue;
            }
            Matcher m = ROW.matcher(line);
            if (!m.matches()) {
                continue;
            }
            String leftRaw = m.group(1);
            String left = leftRaw.strip();
            String right = m.group(2).strip();
            int arrow = leftRaw.indexOf("->");
            String label = arrow >= 0 ? leftRaw.substring(arrow + 2).strip() : left;
            // "-> " is printed right-aligned in three columns per level: level 1 at column 1, 2 at 4, 3 at 7
            int level = arrow < 0 ? (left.isEmpty() ? -1 : 0) : 1 + Math.max(0, arrow - 1) / 3;
            Matcher oldEntity = ENTITY_OLD.matcher(left);
            Matcher oldSystem = SYSTEM_OLD.matcher(right);
            if (level == 0 && label.equals(DcgmHealthReport.OVERALL)) {
                overall = right;
            } else if (oldEntity.matches()) {
                r.end(incidents);
                r.entity = DcgmJson.entity(oldEntity.group(1), oldEntity.group(2));
            } else if (level == -1 && oldSystem.matches() && r.entity != null) {
                r.end(incidents);
                r.start(oldSystem.group(1), oldSystem.group(2), oldSystem.group(3));
            } else if (level == 0) {
                r.end(incidents);
                group = label;
            } else if (level == 1) {
                r.end(incidents);
                r.entity = DcgmJson.entity(group, label);
            } else if (level == 3) {
                r.end(incidents);
                r.start(label, right, null);
            } else if (level == -1 && r.system != null && !right.isEmpty()) {
                r.message.append(r.message.length() == 0 ? "" : " ").append(right);
            }
        }
        r.end(incidents);
        if (overall == null) {
            throw new DcgmOutputException("cannot parse " + what + ": no 'Overall Health' row (dcgmi health -c), first line: "
                    + DcgmJson.shorten(DcgmJson.firstLine(text)));
        }
        return new DcgmHealthReport(overall, incidents);
    }
}
