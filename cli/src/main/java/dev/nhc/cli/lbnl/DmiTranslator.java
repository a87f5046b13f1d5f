package dev.nhc.cli.lbnl;

import dev.nhc.cli.lbnl.Outcome.CarriedOver;
import dev.nhc.cli.lbnl.Outcome.Translated;

import java.util.List;
import java.util.Map;

/**
 * lbnl_dmi.nhc's {@code check_dmi_data_match [-t TYPE] MATCH}: a line of dmidecode's output, read as
 * "TYPE: KEY: VALUE" ("BIOS Information: Version: 2.11.0"), must match. It becomes a {@code command}
 * check that runs dmidecode for that SMBIOS type and looks for the KEY: VALUE line, as dmidecode
 * prints it indented under the type's header.
 */
final class DmiTranslator implements FunctionTranslator {
    /** SMBIOS structure types by the names dmidecode prints (DMTF DSP0134). */
    private static final Map<String, Integer> TYPES = Map.ofEntries(
            Map.entry("BIOS Information", 0), Map.entry("System Information", 1), Map.entry("Base Board Information", 2),
            Map.entry("Chassis Information", 3), Map.entry("Processor Information", 4), Map.entry("Cache Information", 7),
            Map.entry("System Slot Information", 9), Map.entry("Physical Memory Array", 16), Map.entry("Memory Device", 17),
            Map.entry("System Power Supply", 39));

    @Override
    public Outcome translate(String function, List<String> args, ImportContext ctx) {
        if (!function.equals("check_dmi_data_match")) {
            return null;
        }
        Getopts.Result o = Getopts.parse(":!h:nt:", args);
        if (o.error() != null || o.has('!') || o.has('n') || o.has('h') || o.rest().isEmpty() || o.rest().get(0).equals("!")) {
            return new CarriedOver("only check_dmi_data_match [-t TYPE] MATCH is translated (not negated matches or handles)");
        }
        String match = String.join(" ", o.rest());
        String type = o.last('t');
        String line = match;
        if (type == null) {
            int colon = match.indexOf(": ");
            if (colon < 0 || ShellWords.hasGlob(match.substring(0, colon))) {
                return new CarriedOver("the match '" + match + "' names no DMI type before its first ': '");
            }
            type = match.substring(0, colon);
            line = match.substring(colon + 2);
        } else if (line.startsWith(type + ": ")) {
            line = line.substring(type.length() + 2);
        } else if (!line.startsWith("*")) {
            return new CarriedOver("the match '" + match + "' does not start with its type '" + type + ": ' or '*'");
        }
        Integer number = type.matches("[0-9]{1,3}") ? Integer.valueOf(type) : TYPES.get(type);
        if (number == null || line.startsWith("/")) {
            return new CarriedOver("the DMI type '" + type + "' or the match '" + line + "' has no translation here");
        }
        String glob = LineMatch.toValueRegex(line);
        if (glob == null) {
            return new CarriedOver("the match '" + line + "' has no exact Java regular expression form here");
        }
        // dmidecode indents a structure's lines with a tab under its header; the glob matched the line without it
        String regex = "^\\t" + glob.substring(1);
        NhcCheck c = new NhcCheck("dmi-" + FunctionTranslator.slug(type.toLowerCase(java.util.Locale.ROOT)), "command")
                .with("command", List.of("dmidecode", "-t", Integer.toString(number))).with("output", regex);
        c.differs("LBNL NHC matches dmidecode's lines with their headers joined in front ('" + type + ": …'); nhc runs dmidecode -t "
                + number + " and matches the indented line itself, the same for a KEY: VALUE line, not for lines nested deeper");
        return Translated.checks(c);
    }
}
