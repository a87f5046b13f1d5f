package dev.nhc.dstack.e2e;

import dev.nhc.model.Finding;
import dev.nhc.model.Severity;
import dev.nhc.probe.ParamSpec;
import dev.nhc.probe.ParamType;
import dev.nhc.probe.Probe;
import dev.nhc.probe.ProbeContext;
import dev.nhc.probe.ProbeResult;
import dev.nhc.probe.ProbeSpec;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * For the end-to-end suite only: a check whose verdict the script sets by writing
 * "{@code pass|warn|fail message}" to a file, so that dstack's view can be driven through every state.
 */
public final class FlagFileProbe implements Probe {
    @Override
    public ProbeSpec spec() {
        return ProbeSpec.builder("e2e.flag", "end-to-end test: severity and message read from a file")
                .param(ParamSpec.required("file", ParamType.STRING, "file holding 'pass|warn|fail message'"))
                .build();
    }

    @Override
    public ProbeResult probe(ProbeContext ctx) throws Exception {
        Path file = Path.of(ctx.params().string("file"));
        String text = Files.readString(file).trim();
        int sp = text.indexOf(' ');
        String word = sp < 0 ? text : text.substring(0, sp);
        String message = sp < 0 ? word : text.substring(sp + 1);
        Severity s = Severity.parse(word);
        return ProbeResult.builder().finding(Finding.of("node", s, message)).build();
    }
}
