package dev.nhc.engine.config;

import dev.nhc.engine.files.AppendOnlyFile;
import dev.nhc.engine.files.TrustedLibrary;
import dev.nhc.engine.files.UntrustedPathException;
import dev.nhc.engine.process.TrustedCommand;
import dev.nhc.probe.ParamSpec;
import dev.nhc.probe.Params;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * nhc's trust rule, when nhc runs as root, for the config values that name a file nhc runs, loads
 * or appends to ({@link ParamSpec.PathUse}): a value naming a file that someone other than root
 * could change is a config error at the value's file:line:column, so that {@code nhc check-config}
 * shows it and no run starts with it. The rule is the one used when the file is run, loaded or
 * opened ({@link TrustedCommand}, {@link TrustedLibrary}, {@link AppendOnlyFile}), which apply it
 * again then. A file that is not there, where only root could create it, is not a config error:
 * that is the run's finding ({@code unknown}, "not found"), for a config may be checked where a
 * tool is not installed.
 */
public final class TrustedValues {
    private TrustedValues() {
    }

    /** Adds a problem for each value of {@code values} whose file root must not trust. */
    public static void check(List<ParamSpec<?>> specs, Params values, ConfigNode node, String where, Problems problems) {
        for (ParamSpec<?> spec : specs) {
            Object value = values.raw(spec.name());
            if (spec.pathUse() == null || value == null || !spec.isSetIn(values)) {
                continue;
            }
            String why = refusal(spec.pathUse(), value);
            if (why != null) {
                ConfigNode at = node == null ? null : node.get(spec.name());
                problems.add(at != null ? at.location() : node.location(),
                        "'" + spec.name() + "' in " + where + (where.endsWith(":") ? " " : ": ") + why);
            }
        }
    }

    /** Why root must not run, load or append to what {@code value} names (a text, or an argv for RUN), or null. */
    public static String refusal(ParamSpec.PathUse use, Object value) {
        try {
            switch (use) {
                case RUN -> {
                    List<String> argv = value instanceof List<?> l ? l.stream().map(String::valueOf).toList() : List.of(value.toString());
                    TrustedCommand.check(argv);
                }
                case LOAD -> TrustedLibrary.locate(value.toString(), true);
                case APPEND -> AppendOnlyFile.check(Path.of(value.toString()));
                default -> throw new IllegalStateException("unknown use " + use);
            }
            return null;
        } catch (UntrustedPathException e) {
            String verb = switch (use) {
                case RUN -> "run";
                case LOAD -> "load";
                case APPEND -> "write to";
            };
            String shown = value instanceof List<?> l ? String.valueOf(l.get(0)) : value.toString();
            return "refusing to " + verb + " " + shown + " as root: " + e.getMessage()
                    + "; running as root, nhc " + (use == ParamSpec.PathUse.APPEND ? "writes only to files" : "runs and loads only files")
                    + " that only root can change";
        } catch (IOException | RuntimeException e) {
            return null; // not there, or not examinable here: the run says so where it is used
        }
    }
}
