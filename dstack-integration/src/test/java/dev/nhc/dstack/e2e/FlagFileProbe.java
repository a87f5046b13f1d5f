package dev.nhc.dstack.e2e;

import dev.nhc.model.Entity;
import dev.nhc.model.Observation;
import dev.nhc.probe.DefaultRule;
import dev.nhc.probe.ParamSpec;
import dev.nhc.probe.Probe;
import dev.nhc.probe.ProbeContext;
import dev.nhc.probe.ProbeResult;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.units.Unit;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * For the end-to-end suite only: a check whose verdict the script sets by writing
 * "{@code pass|warn|fail message}" to a file, so that dstack's view can be driven through every
 * state. It observes the word and the message; its default rules turn them into a verdict.
 */
public final class FlagFileProbe implements Probe {
    static final ParamSpec<String> FILE = ParamSpec.text("file", "file holding 'pass|warn|fail message'").required();

    private static final ProbeSpec SPEC = ProbeSpec.builder("e2e.flag", "end-to-end test: severity and message read from a file")
            .entities(Entity.Kind.NODE, "the node")
            .param(FILE)
            .field("flag", Unit.TEXT, "the file's first word: pass, warn or fail")
            .field("message", Unit.TEXT, "the rest of the file")
            .rule(DefaultRule.fail(Map.of("flag", "fail"), "{message}"))
            .rule(DefaultRule.warn(Map.of("flag", "warn"), "{message}"))
            .build();

    @Override
    public ProbeSpec spec() {
        return SPEC;
    }

    @Override
    public ProbeResult probe(ProbeContext ctx) throws Exception {
        String text = Files.readString(Path.of(FILE.get(ctx.params()))).trim();
        int sp = text.indexOf(' ');
        String word = sp < 0 ? text : text.substring(0, sp);
        String message = sp < 0 ? word : text.substring(sp + 1);
        return ProbeResult.of(Observation.of(Entity.NODE).put("flag", word).put("message", message).build());
    }
}
