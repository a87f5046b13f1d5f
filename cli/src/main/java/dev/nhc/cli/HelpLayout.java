package dev.nhc.cli;

import picocli.CommandLine;
import picocli.CommandLine.Help;
import picocli.CommandLine.Help.Ansi.Text;
import picocli.CommandLine.Help.Column;
import picocli.CommandLine.Help.TextTable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;
import picocli.CommandLine.Model.UsageMessageSpec;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * nhc's help screens: picocli's layout, with text broken at spaces only (see {@link WordWrap}),
 * and footer lines that start with spaces read as "COMMAND  explanation": the command (an example,
 * an exit code) is never broken, only the explanation wraps, under itself. So an example in a help
 * screen can be copied as it stands.
 */
final class HelpLayout {
    /** "  nhc run --verbose      every check ..." : indentation, the command, a gap of two spaces or more, the explanation. */
    private static final Pattern FOOTER_ENTRY = Pattern.compile("( +)(\\S(?:.*?\\S)??)(?:( {2,})(\\S.*))?");

    private HelpLayout() {
    }

    /** A command line for {@code command} (and its subcommands) whose help uses this layout. */
    static CommandLine commandLine(Object command) {
        CommandLine cl = new CommandLine(command);
        cl.setHelpFactory(SpaceWrappedHelp::new);
        return cl;
    }

    /** The lines of a footer entry or paragraph, at most {@code width} wide except a command longer than that. */
    static List<String> footerLines(String line, int width) {
        Matcher m = FOOTER_ENTRY.matcher(line);
        if (!m.matches()) {
            return WordWrap.lines(line, width, 0);
        }
        if (m.group(4) == null) {
            return List.of(line);
        }
        String head = m.group(1) + m.group(2) + m.group(3);
        List<String> text = WordWrap.lines(m.group(4), Math.max(20, width - head.length()), 0);
        List<String> out = new ArrayList<>();
        String pad = " ".repeat(head.length());
        for (String t : text) {
            out.add((out.isEmpty() ? head : pad) + t);
        }
        return out;
    }

    private static String format(String s) {
        return s.replace("%n", "\n").replace("%%", "%");
    }

    /** picocli's Help with the description, footer, option list and command list wrapped at spaces. */
    private static final class SpaceWrappedHelp extends Help {
        SpaceWrappedHelp(CommandSpec spec, ColorScheme colors) {
            super(spec, colors);
        }

        private int width() {
            return commandSpec().usageMessage().width();
        }

        @Override
        public String description(Object... params) {
            StringBuilder out = new StringBuilder();
            for (String paragraph : commandSpec().usageMessage().description()) {
                for (String line : format(paragraph).split("\n", -1)) {
                    WordWrap.lines(line, width(), 0).forEach(l -> out.append(l).append('\n'));
                }
            }
            return out.toString();
        }

        @Override
        public String footer(Object... params) {
            StringBuilder out = new StringBuilder();
            for (String entry : commandSpec().usageMessage().footer()) {
                for (String line : format(entry).split("\n", -1)) {
                    footerLines(line, width()).forEach(l -> out.append(l).append('\n'));
                }
            }
            return out.toString();
        }

        @Override
        public Layout createDefaultLayout(List<OptionSpec> options, List<PositionalParamSpec> positionals, ColorScheme colors) {
            int longOptions = calcLongOptionColumnWidth(options, positionals, colors);
            // The columns of picocli's TextTable.forDefaultColumns: mark, short option, comma, long option, description.
            TextTable table = new SpaceWrappedTable(colors,
                    new Column(2, 0, Column.Overflow.TRUNCATE),
                    new Column(2, 0, Column.Overflow.SPAN),
                    new Column(1, 0, Column.Overflow.TRUNCATE),
                    new Column(longOptions, 1, Column.Overflow.SPAN),
                    new Column(width() - 5 - longOptions, 1, Column.Overflow.WRAP));
            return new Layout(colors, table, createDefaultOptionRenderer(), createDefaultParameterRenderer());
        }

        @Override
        public String commandList(Map<String, Help> subcommands) {
            if (subcommands.isEmpty()) {
                return "";
            }
            int names = 0;
            for (String n : subcommands.keySet()) {
                names = Math.max(names, n.length());
            }
            names = Math.min(names, width() / 2);
            TextTable table = new SpaceWrappedTable(colorScheme(),
                    new Column(names + 2, 2, Column.Overflow.SPAN),
                    new Column(width() - (names + 2), 2, Column.Overflow.WRAP));
            for (Help help : subcommands.values()) {
                UsageMessageSpec usage = help.commandSpec().usageMessage();
                String first = usage.header().length > 0 ? usage.header()[0]
                        : usage.description().length > 0 ? usage.description()[0] : "";
                Text[] lines = colorScheme().text(format(first)).splitLines();
                for (int i = 0; i < lines.length; i++) {
                    table.addRowValues(i == 0 ? help.commandNamesText(", ") : colorScheme().text(""), lines[i]);
                }
            }
            return table.toString();
        }
    }

    /** A TextTable whose wrapping columns break at spaces only. */
    private static final class SpaceWrappedTable extends TextTable {
        private final Help.ColorScheme colors;

        SpaceWrappedTable(Help.ColorScheme colors, Column... columns) {
            super(colors, columns);
            this.colors = colors;
        }

        @Override
        public Cell putValue(int row, int col, Text value) {
            Column column = columns()[col];
            if (column.overflow != Column.Overflow.WRAP || value == null || value.plainString().isEmpty()) {
                return super.putValue(row, col, value);
            }
            int room = column.width - column.indent;
            List<int[]> pieces = WordWrap.ranges(value.plainString(), room, room - indentWrappedLines);
            Cell last = new Cell(col, row);
            for (int i = 0; i < pieces.size(); i++) {
                Text piece = value.substring(pieces.get(i)[0], pieces.get(i)[1]);
                if (i > 0) {
                    row++;
                    addEmptyRow();
                    piece = colors.text(" ".repeat(indentWrappedLines)).concat(piece);
                }
                last = super.putValue(row, col, piece);
                row = last.row;
            }
            return last;
        }
    }
}
