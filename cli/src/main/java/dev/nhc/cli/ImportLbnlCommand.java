package dev.nhc.cli;

import dev.nhc.cli.lbnl.LbnlImporter;
import dev.nhc.cli.lbnl.LbnlImporter.Entry;
import dev.nhc.cli.lbnl.LbnlImporter.Kind;
import dev.nhc.cli.lbnl.YamlWriter;
import dev.nhc.engine.policy.ExitCodes;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

@Command(name = "import-lbnl", description = {
        "Translate an LBNL NHC config (nhc.conf) into an nhc config, written to stdout.",
        "Each line is translated into checks with the same meaning, carried over as a script check that has "
                + "LBNL NHC evaluate it ('nhc -e', which neither logs nor marks the node offline), or refused; "
                + "every refused line is printed on stderr as FILE:LINE: reason.",
        "Exit 0 when every line was translated or carried over, 1 when some were refused (the output has them as "
                + "comments), 2 when the file cannot be read."})
final class ImportLbnlCommand implements Callable<Integer> {
    /** A config bigger than this is not an nhc.conf. */
    private static final long MAX_BYTES = 4L << 20;

    @Parameters(index = "0", paramLabel = "FILE", description = "The LBNL NHC config, e.g. /etc/nhc/nhc.conf.")
    Path file;

    @Option(names = "--lbnl-nhc", paramLabel = "PATH", defaultValue = LbnlImporter.DEFAULT_LBNL_NHC,
            description = "The LBNL NHC driver the carried-over checks run (default: ${DEFAULT-VALUE}).")
    String lbnlNhc;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help.")
    boolean help;

    @Override
    public Integer call() {
        return run(System.out, System.err);
    }

    int run(PrintStream out, PrintStream err) {
        if (!lbnlNhc.startsWith("/")) {
            err.println("nhc: --lbnl-nhc must be an absolute path, not '" + lbnlNhc + "'");
            return ExitCodes.INVALID;
        }
        String content;
        try {
            if (!Files.isRegularFile(file)) {
                err.println(file + ": not a readable file");
                return ExitCodes.INVALID;
            }
            if (Files.size(file) > MAX_BYTES) {
                err.println(file + ": " + Files.size(file) + " bytes is too big for an LBNL NHC config (at most " + MAX_BYTES + ")");
                return ExitCodes.INVALID;
            }
            content = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .decode(java.nio.ByteBuffer.wrap(Files.readAllBytes(file))).toString();
        } catch (CharacterCodingException e) {
            err.println(file + ": not UTF-8 text");
            return ExitCodes.INVALID;
        } catch (IOException e) {
            err.println(file + ": cannot read it: " + Main.describe(e));
            return ExitCodes.INVALID;
        }
        LbnlImporter.Result result = new LbnlImporter(lbnlNhc, true).importConfig(file.toString(), content);
        out.print(YamlWriter.write(result));
        out.flush();
        for (Entry e : result.entries()) {
            if (e.kind() == Kind.REFUSED) {
                err.println(file + ":" + e.line().number() + ": refused: " + e.reason());
            }
        }
        long translated = result.count(Kind.TRANSLATED);
        err.println(file + ": " + translated + (translated == 1 ? " line" : " lines") + " translated, " + result.count(Kind.CARRIED_OVER)
                + " carried over as LBNL script checks, " + result.count(Kind.REFUSED) + " refused");
        return result.count(Kind.REFUSED) > 0 ? ExitCodes.FAIL : ExitCodes.OK;
    }
}
