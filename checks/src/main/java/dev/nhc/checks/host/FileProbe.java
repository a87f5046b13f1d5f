package dev.nhc.checks.host;

import dev.nhc.model.Finding;
import dev.nhc.model.Observation;
import dev.nhc.model.Severity;
import dev.nhc.probe.ParamSpec;
import dev.nhc.probe.ParamType;
import dev.nhc.probe.Params;
import dev.nhc.probe.Probe;
import dev.nhc.probe.ProbeContext;
import dev.nhc.probe.ProbeResult;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.units.Unit;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * {@code file}: a file exists (or not), with a mode, an owner, a maximum age, and contents that
 * match a regex. The path is resolved under the system root. {@code mode} is octal text
 * ({@code "0644"}; quote it in YAML or write {@code 0644}: the config keeps the digits as written).
 * {@code contains} is searched in the first 16 MiB.
 */
public final class FileProbe implements Probe {
    private static final int CONTENT_MAX = 16 * 1024 * 1024;

    private static final ProbeSpec SPEC = ProbeSpec.builder("file", "a file exists (or not), with mode, owner, age and contents")
            .entities("the path")
            .param(ParamSpec.required("path", ParamType.STRING, "absolute path"))
            .param(ParamSpec.optional("exists", ParamType.BOOLEAN, Boolean.TRUE, "whether it must exist"))
            .param(ParamSpec.optional("mode", ParamType.STRING, null, "permission bits in octal, e.g. 0644"))
            .param(ParamSpec.optional("owner", ParamType.STRING, null, "owner user name or uid"))
            .param(ParamSpec.optional("max_age", ParamType.DURATION, null, "fail when last modified longer ago than this"))
            .param(ParamSpec.optional("contains", ParamType.STRING, null, "regex its contents must contain"))
            .field("exists", Unit.BOOLEAN, "whether the path exists")
            .field("mode", Unit.TEXT, "permission bits in octal")
            .field("owner", Unit.TEXT, "owner user name")
            .field("age_seconds", Unit.SECONDS, "time since last modification")
            .field("size", Unit.BYTES, "size in bytes")
            .build();

    @Override
    public ProbeSpec spec() {
        return SPEC;
    }

    @Override
    public ProbeResult probe(ProbeContext ctx) {
        Params p = ctx.params();
        String path = p.string("path");
        Path f = ctx.sys(path);
        boolean mustExist = !Boolean.FALSE.equals(p.bool("exists"));
        ProbeResult.Builder out = ProbeResult.builder();
        if (!Files.exists(f)) {
            out.observe(Observation.of(path).put("exists", false).build());
            if (mustExist) {
                out.finding(Finding.of(path, Severity.FAIL, path + " does not exist"));
            }
            return out.build();
        }
        if (!mustExist) {
            out.observe(Observation.of(path).put("exists", true).build());
            return out.finding(Finding.of(path, Severity.FAIL, path + " exists but should not")).build();
        }
        PosixFileAttributes a;
        long modeBits;
        long uid;
        try {
            a = Files.readAttributes(f, PosixFileAttributes.class);
            modeBits = ((Number) Files.getAttribute(f, "unix:mode")).longValue() & 07777;
            uid = ((Number) Files.getAttribute(f, "unix:uid")).longValue();
        } catch (IOException | UnsupportedOperationException e) {
            return out.finding(Finding.of(path, Severity.UNKNOWN, "cannot read the attributes of " + f + ": " + e.getMessage())).build();
        }
        String mode = String.format(Locale.ROOT, "0%03o", modeBits);
        long age = Math.max(0, Duration.between(a.lastModifiedTime().toInstant(), ctx.clock().instant()).getSeconds());
        out.observe(Observation.of(path).put("exists", true).put("mode", mode).put("owner", a.owner().getName())
                .put("age_seconds", age).put("size", a.size()).build());

        List<String> problems = new ArrayList<>();
        Severity sev = Severity.FAIL;
        if (p.string("mode") != null) {
            Long want = octal(p.string("mode"));
            if (want == null) {
                return out.finding(Finding.of(path, Severity.UNKNOWN, "check " + ctx.checkName() + ": mode '" + p.string("mode")
                        + "' is not octal permission bits such as 0644")).build();
            }
            if (want != modeBits) {
                problems.add("mode " + mode + ", expected " + String.format(Locale.ROOT, "0%03o", want));
            }
        }
        String owner = p.string("owner");
        if (owner != null) {
            boolean numeric = !owner.isEmpty() && owner.chars().allMatch(Character::isDigit);
            boolean ok = numeric ? Long.parseLong(owner) == uid : owner.equals(a.owner().getName());
            if (!ok) {
                problems.add("owner " + a.owner().getName() + " (uid " + uid + "), expected " + owner);
            }
        }
        Duration maxAge = p.duration("max_age");
        if (maxAge != null && age > maxAge.getSeconds()) {
            problems.add("last modified " + age + "s ago, more than " + maxAge.getSeconds() + "s");
        }
        if (p.string("contains") != null) {
            Pattern re;
            try {
                re = Pattern.compile(p.string("contains"), Pattern.MULTILINE);
            } catch (PatternSyntaxException e) {
                return out.finding(Finding.of(path, Severity.UNKNOWN, "check " + ctx.checkName()
                        + ": 'contains' is not a valid regular expression: " + e.getDescription())).build();
            }
            try {
                if (!re.matcher(head(f)).find()) {
                    problems.add("does not contain /" + re.pattern() + "/");
                }
            } catch (IOException e) {
                if (problems.isEmpty()) {
                    sev = Severity.UNKNOWN;
                }
                problems.add("cannot read its contents: " + e.getMessage());
            }
        }
        if (!problems.isEmpty()) {
            out.finding(Finding.of(path, sev, path + ": " + String.join("; ", problems)));
        }
        return out.build();
    }

    private static String head(Path f) throws IOException {
        try (InputStream in = Files.newInputStream(f)) {
            return new String(in.readNBytes(CONTENT_MAX), StandardCharsets.UTF_8);
        }
    }

    static Long octal(String text) {
        String t = text.strip();
        if (t.startsWith("0o")) {
            t = t.substring(2);
        }
        if (t.isEmpty() || t.length() > 5 || !t.chars().allMatch(c -> c >= '0' && c <= '7')) {
            return null;
        }
        long v = Long.parseLong(t, 8);
        return v <= 07777 ? v : null;
    }
}
