package dev.nhc.cli;

import dev.nhc.cli.lbnl.LbnlImporter;
import dev.nhc.cli.lbnl.LbnlImporter.Entry;
import dev.nhc.cli.lbnl.LbnlImporter.Kind;
import dev.nhc.cli.lbnl.Sysconfig;
import dev.nhc.cli.lbnl.YamlWriter;
import dev.nhc.engine.policy.ExitCodes;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Callable;

@Command(name = "import-lbnl", description = {
        "Translate an LBNL NHC config (nhc.conf) into an nhc config, written to stdout.",
        "Each line is translated into checks with the same meaning, carried over as a script check that has "
                + "LBNL NHC evaluate it ('nhc -e', which neither logs nor marks the node offline), or refused. "
                + "On stderr: every refused and carried-over line, and every translated one whose checks differ from the LBNL line, "
                + "as FILE:LINE: what and why.",
        "Exit 0 when every line was translated or carried over, 1 when some were refused (the output has them as "
                + "comments), 2 when the file cannot be read."})
final class ImportLbnlCommand implements Callable<Integer> {
    /** Where it prints (see {@link Streams}). */
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** A config bigger than this is not an nhc.conf. */
    private static final long MAX_BYTES = 4L << 20;

    @Parameters(index = "0", paramLabel = "FILE", description = "The LBNL NHC config, e.g. /etc/nhc/nhc.conf.")
    Path file;

    @Option(names = "--lbnl-nhc", paramLabel = "PATH", defaultValue = LbnlImporter.DEFAULT_LBNL_NHC,
            description = "The LBNL NHC driver the carried-over checks run (default: ${DEFAULT-VALUE}).")
    String lbnlNhc;

    @Option(names = "--sysconfig", paramLabel = "FILE",
            description = "The node's LBNL NHC sysconfig file (/etc/sysconfig/nhc or /etc/default/nhc, which LBNL NHC sources before "
                    + "its config): the variables it sets are expanded in the config's lines as LBNL NHC would expand them on that node. "
                    + "Without it, lines that use them are carried over.")
    Path sysconfigFile;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help.")
    boolean help;

    @Override
    public Integer call() {
        Streams io = Streams.of(spec);
        return run(io.out(), io.err());
    }

    private int run(PrintWriter out, PrintWriter err) {
        if (!lbnlNhc.startsWith("/")) {
            err.println("nhc: --lbnl-nhc must be an absolute path, not '" + lbnlNhc + "'");
            return ExitCodes.INVALID;
        }
        String content = read(file, err);
        if (content == null) {
            return ExitCodes.INVALID;
        }
        Sysconfig sysconfig = null;
        if (sysconfigFile != null) {
            String text = read(sysconfigFile, err);
            if (text == null) {
                return ExitCodes.INVALID;
            }
            try {
                sysconfig = Sysconfig.parse(sysconfigFile.toString(), text);
            } catch (IllegalArgumentException e) {
                err.println(e.getMessage());
                return ExitCodes.INVALID;
            }
        }
        LbnlImporter.Result result = new LbnlImporter(lbnlNhc, sysconfig).importConfig(file.toString(), content);
        out.print(YamlWriter.write(result));
        out.flush();
        // The same difference on many lines (twelve ports of one function) is told in full once.
        Map<String, Integer> told = new HashMap<>();
        for (Entry e : result.entries()) {
            String where = file + ":" + e.line().number() + ": ";
            switch (e.kind()) {
                case REFUSED -> err.println(where + "refused: " + e.reason());
                case CARRIED_OVER -> err.println(where + "carried over (LBNL NHC evaluates it): " + e.reason());
                case TRANSLATED -> e.differences().forEach(d -> {
                    Integer first = told.putIfAbsent(d, e.line().number());
                    err.println(where + "differs: " + (first == null ? d : "as on line " + first));
                });
            }
        }
        long translated = result.count(Kind.TRANSLATED);
        long carried = result.count(Kind.CARRIED_OVER);
        err.println(file + ": " + translated + (translated == 1 ? " line" : " lines") + " translated, " + carried
                + " carried over as LBNL script checks, " + result.count(Kind.REFUSED) + " refused");
        long expanded = result.entries().stream().filter(Entry::fromSysconfig).count();
        if (expanded > 0) {
            err.println(file + ": " + expanded + (expanded == 1 ? " line takes its values" : " lines take their values") + " from "
                    + sysconfigFile + " (each check's comment says which): the checks hold the values it has now, so import again"
                    + " when it changes, or per node where nodes' files differ");
        }
        if (result.hasActions()) {
            err.println(file + ": the checks with an 'action' (a service LBNL NHC started or restarted) run it only with "
                    + "settings.run_actions: true, which the imported config leaves off");
        }
        boolean scripts = result.entries().stream().anyMatch(e -> e.kind() == Kind.CARRIED_OVER && !e.checks().isEmpty());
        if (scripts && !Files.isExecutable(Path.of(lbnlNhc))) {
            err.println("nhc: warning: the carried-over checks run LBNL NHC's " + lbnlNhc + ", which is not installed here; "
                    + "install LBNL NHC wherever this config runs (or give --lbnl-nhc PATH), or those checks fail");
        }
        return result.count(Kind.REFUSED) > 0 ? ExitCodes.FAIL : ExitCodes.OK;
    }

    /** The file's text, or null after saying on stderr why it cannot be read. */
    private static String read(Path path, PrintWriter err) {
        try {
            if (!Files.isRegularFile(path)) {
                err.println(path + ": not a readable file");
                return null;
            }
            if (Files.size(path) > MAX_BYTES) {
                err.println(path + ": " + Files.size(path) + " bytes is too big for an LBNL NHC file (at most " + MAX_BYTES + ")");
                return null;
            }
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .decode(java.nio.ByteBuffer.wrap(Files.readAllBytes(path))).toString();
        } catch (CharacterCodingException e) {
            err.println(path + ": not UTF-8 text");
            return null;
        } catch (IOException e) {
            err.println(path + ": cannot read it: " + Main.describe(e));
            return null;
        }
    }
}
