package dev.nhc.cli;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every help screen fits 80 columns, breaks no word and no example: what the help shows can be copied as it stands. */
class HelpTextTest {

    /** nhc's help screen and those of all its commands, by name. */
    private static List<CommandLine> screens() {
        CommandLine nhc = HelpLayout.commandLine(new Main());
        List<CommandLine> all = new ArrayList<>();
        all.add(nhc);
        all.addAll(nhc.getSubcommands().values());
        return all;
    }

    /** Everything a screen says in words of its own (help, options, parameters, footer; the first line of each subcommand). */
    private static List<String> sourceTexts(CommandLine cl) {
        CommandSpec spec = cl.getCommandSpec();
        List<String> texts = new ArrayList<>(Arrays.asList(spec.usageMessage().description()));
        texts.addAll(Arrays.asList(spec.usageMessage().footer()));
        for (ArgSpec a : spec.args()) {
            if (!a.hidden()) {
                texts.addAll(Arrays.asList(a.description()));
            }
        }
        for (CommandLine sub : cl.getSubcommands().values()) {
            // The command list shows a command's header, else the first paragraph of its description.
            String[] h = sub.getCommandSpec().usageMessage().header();
            String[] d = sub.getCommandSpec().usageMessage().description();
            if (h.length > 0 || d.length > 0) {
                texts.add(h.length > 0 ? h[0] : d[0]);
            }
        }
        return texts;
    }

    @Test
    void everyScreenFitsEightyColumnsAndKeepsEveryWordWhole() {
        for (CommandLine cl : screens()) {
            String name = cl.getCommandSpec().qualifiedName();
            String help = cl.getUsageMessage(CommandLine.Help.Ansi.OFF);
            for (String line : help.lines().toList()) {
                assertTrue(line.length() <= 80, name + ": a line of " + line.length() + " columns:\n" + line);
            }
            Set<String> shown = new HashSet<>(Arrays.asList(help.split("\\s+")));
            for (String text : sourceTexts(cl)) {
                for (String word : text.replace("%n", " ").split("\\s+")) {
                    if (!word.isEmpty() && !word.contains("${")) {
                        assertTrue(shown.contains(word), name + ": the word '" + word + "' is broken across lines:\n" + help);
                    }
                }
            }
        }
    }

    @Test
    void everyExampleIsOneLineAsWritten() {
        int examples = 0;
        for (CommandLine cl : screens()) {
            String help = cl.getUsageMessage(CommandLine.Help.Ansi.OFF);
            List<String> lines = help.lines().toList();
            for (String entry : cl.getCommandSpec().usageMessage().footer()) {
                if (!entry.startsWith("  ")) {
                    continue;
                }
                String command = entry.split(" {2,}")[1];
                examples++;
                assertTrue(lines.stream().anyMatch(l -> l.startsWith("  " + command)),
                        cl.getCommandSpec().qualifiedName() + ": '" + command + "' is not on one line:\n" + help);
            }
        }
        assertTrue(examples >= 10, "examples found: " + examples);
    }

    @Test
    void anExplanationWrapsUnderItselfAndTheCommandStaysWhole() {
        List<String> lines = HelpLayout.footerLines("  nhc run --only root-fs gpu-ecc    just these checks (runs 'every:' checks even when not due)", 60);
        assertEquals(List.of("  nhc run --only root-fs gpu-ecc    just these checks (runs",
                "                                    'every:' checks even",
                "                                    when not due)"), lines);
        String long1 = "  nhc replay -c /etc/nhc/nhc.yaml --nvidia-smi-q ticket-4711-nvidia-smi-q.txt --json";
        assertEquals(List.of(long1), HelpLayout.footerLines(long1, 60), "a command wider than the screen is still one line");
    }

    @Test
    void wordsBreakOnlyAtSpaces() {
        assertEquals(List.of("overrides", "settings.nvml_library)"), WordWrap.lines("overrides settings.nvml_library)", 12, 0));
        assertEquals(List.of("a b c", "  d e"), WordWrap.lines("a b c d e", 5, 2));
        assertEquals(List.of("averyveryverylongword", "x"), WordWrap.lines("averyveryverylongword x", 5, 0));
    }
}
