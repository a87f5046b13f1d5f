package dev.nhc.checks.host;

import dev.nhc.engine.files.OpenedFile;
import dev.nhc.model.Entity;
import dev.nhc.model.Observation;
import dev.nhc.probe.DefaultRule;
import dev.nhc.probe.ParamSpec;
import dev.nhc.probe.Params;
import dev.nhc.probe.Probe;
import dev.nhc.probe.ProbeContext;
import dev.nhc.probe.ProbeResult;
import dev.nhc.probe.ProbeSpec;
import dev.nhc.probe.Tags;
import dev.nhc.text.BoundedRegex;
import dev.nhc.units.Unit;

import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * {@code file}: a file exists (or not), with a mode, an owner, a maximum age, and contents that
 * match a regex. The path is resolved under the system root. It observes what the file is; the
 * default rules compare that with the check's parameters, one rule per parameter, so the first
 * mismatch (existence, mode, owner, age, contents, in that order) is the finding.
 * {@code contains} is matched line by line (lines of up to 64 KiB) in the first 16 MiB of a regular
 * file, with {@code ^} and {@code $} matching at line ends; a FIFO or device is not read.
 */
public final class FileProbe implements Probe {
    private static final int CONTENT_MAX = 16 * 1024 * 1024;
    /** The longest line matched at once; a longer one is matched in pieces. */
    static final int LINE_MAX = 64 * 1024;
    /** Lines the 'contains' regex may give up on before the search stops: each costs up to its bound. */
    static final int GAVE_UP_MAX = 16;

    static final ParamSpec<String> PATH = ParamSpec.text("path", "absolute path")
            .required()
            .check(p -> p.startsWith("/") ? null : "must be an absolute path, not '" + p + "'");
    static final ParamSpec<Boolean> EXISTS = ParamSpec.flag("exists", "whether it must exist").defaultValue(Boolean.TRUE);
    static final ParamSpec<String> MODE = ParamSpec.octalMode("mode", "permission bits it must have, in octal (quote it or not: 0644)");
    static final ParamSpec<String> OWNER = ParamSpec.text("owner", "owner it must have: user name or uid");
    static final ParamSpec<Duration> MAX_AGE = ParamSpec.duration("max_age", "fail when last modified longer ago than this");
    static final ParamSpec<Pattern> CONTAINS = ParamSpec.regex("contains", "regex its contents must contain (^ and $ match at line ends)");

    private static final ProbeSpec SPEC = ProbeSpec.builder("file", "a file exists (or not), with mode, owner, age and contents")
            .tags(Tags.HOST)
            .entities(Entity.Kind.PATH, "the path")
            .param(PATH)
            .param(EXISTS)
            .param(MODE)
            .param(OWNER)
            .param(MAX_AGE)
            .param(CONTAINS)
            .field("exists", Unit.BOOLEAN, "whether the path exists")
            .field("mode", Unit.TEXT, "permission bits in octal, four digits (0644, 4755)")
            .field("owner", Unit.TEXT, "owner user name (the uid when it has no name)")
            .field("uid", Unit.COUNT, "owner uid")
            .field("owner_matches", Unit.BOOLEAN, "whether the owner is the 'owner' parameter, by name or uid (only with owner)")
            .field("age_seconds", Unit.SECONDS, "time since last modification")
            .field("size", Unit.BYTES, "size in bytes")
            .field("type", Unit.TEXT, "what the path is, after links: regular, directory, char-device, block-device, fifo, socket")
            .field("symlink", Unit.BOOLEAN, "whether the path itself is a symbolic link")
            .field("readable", Unit.BOOLEAN, "whether nhc may read it (access(2), as test -r asks)")
            .field("writable", Unit.BOOLEAN, "whether nhc may write it (access(2): false on a read-only filesystem, even for root)")
            .field("executable", Unit.BOOLEAN, "whether nhc may execute it, or search it if a directory (access(2))")
            .field("gid", Unit.COUNT, "group gid")
            .field("group", Unit.TEXT, "group name (the gid when it has none)")
            .field("device_major", Unit.COUNT, "major device number of a char or block device")
            .field("device_minor", Unit.COUNT, "minor device number of a char or block device")
            .field("ctime_age_seconds", Unit.SECONDS, "time since its inode last changed (ctime)")
            .field("contents_match", Unit.BOOLEAN, "whether the 'contains' regex is found in its contents (only with contains)")
            .field("contents_readable", Unit.BOOLEAN, "whether its contents could be read (only with contains)")
            .field("contents_error", Unit.TEXT, "why its contents could not be read")
            .optional("owner_matches", "contents_match", "contents_readable", "contents_error", "device_major", "device_minor")
            .rule(DefaultRule.fail(Map.of("exists", false), "{entity} does not exist").when("exists", true))
            .rule(DefaultRule.fail(Map.of("exists", true), "{entity} exists but should not").when("exists", false))
            .rule(DefaultRule.fail(Map.of("mode", "!= {with.mode}"), "{entity}: mode {mode}, expected {with.mode}").when("exists", true))
            .rule(DefaultRule.fail(Map.of("owner_matches", false), "{entity}: owner {owner} (uid {uid}), expected {with.owner}")
                    .when("exists", true))
            .rule(DefaultRule.fail(Map.of("age_seconds", "> {with.max_age}"),
                    "{entity}: last modified {age_seconds} ago, more than {with.max_age}").when("exists", true))
            .rule(DefaultRule.fail(Map.of("contents_match", false), "{entity}: does not contain /{with.contains}/").when("exists", true))
            .rule(DefaultRule.unknown(Map.of("contents_readable", false), "{entity}: cannot read its contents: {contents_error}"))
            .build();

    @Override
    public ProbeSpec spec() {
        return SPEC;
    }

    @Override
    public ProbeResult probe(ProbeContext ctx) {
        Params p = ctx.params();
        String path = PATH.get(p);
        Entity entity = Entity.of(Entity.Kind.PATH, path);
        Path f = ctx.sys(path);
        if (!Files.exists(f)) {
            return ProbeResult.of(Observation.of(entity).put("exists", false).build());
        }
        if (!EXISTS.get(p)) {
            return ProbeResult.of(Observation.of(entity).put("exists", true).build());
        }
        PosixFileAttributes a;
        long modeBits;
        long uid;
        try {
            a = Files.readAttributes(f, PosixFileAttributes.class);
            modeBits = ((Number) Files.getAttribute(f, "unix:mode")).longValue() & 07777;
            uid = ((Number) Files.getAttribute(f, "unix:uid")).longValue();
        } catch (IOException | UnsupportedOperationException e) {
            return ProbeResult.of(Observation.unreadable(entity, "cannot read the attributes of " + f + ": " + e.getMessage()));
        }
        String owner = a.owner().getName();
        Observation.Builder o = Observation.of(entity).put("exists", true).put("mode", mode(modeBits)).put("owner", owner)
                .put("uid", uid)
                .put("age_seconds", Math.max(0, Duration.between(a.lastModifiedTime().toInstant(), ctx.clock().instant()).getSeconds()))
                .put("size", a.size());
        observeKind(f, a, o, ctx);
        String wantedOwner = OWNER.get(p);
        if (wantedOwner != null) {
            o.put("owner_matches", isUid(wantedOwner) ? Long.parseLong(wantedOwner) == uid : wantedOwner.equals(owner));
        }
        Pattern contains = CONTAINS.get(p);
        if (contains != null) {
            try {
                // Lines, as an admin reads a file: ^ and $ match at each line's ends.
                BoundedRegex.Result r = containsLine(f, BoundedRegex.forSearch(contains.pattern(), contains.flags() | Pattern.MULTILINE));
                if (r == BoundedRegex.Result.GAVE_UP) {
                    // a line the regex could not finish on may have held the text: neither a match nor a miss
                    o.put("contents_readable", false).put("contents_error", "the 'contains' regex gave up on a line (it read more than "
                            + BoundedRegex.BOUND + ") and no line before matched; write it without nested or leading wildcards");
                } else {
                    o.put("contents_match", r.matched()).put("contents_readable", true);
                }
            } catch (OpenedFile.NotRegularFileException e) {
                o.put("contents_readable", false).put("contents_error", e.getMessage());
            } catch (IOException e) {
                o.put("contents_readable", false).put("contents_error", why(e));
            }
        }
        return ProbeResult.of(o.build());
    }

    /** Type, access, group, device numbers and ctime: what LBNL's check_file_test and check_file_stat ask of a file. */
    private static void observeKind(Path f, PosixFileAttributes a, Observation.Builder o, ProbeContext ctx) {
        o.put("type", a.isRegularFile() ? "regular" : a.isDirectory() ? "directory" : a.isSymbolicLink() ? "symlink" : null)
                .put("symlink", Files.isSymbolicLink(f))
                .put("readable", Files.isReadable(f))
                .put("writable", Files.isWritable(f))
                .put("executable", Files.isExecutable(f))
                .put("group", a.group().getName());
        try {
            long unixMode = ((Number) Files.getAttribute(f, "unix:mode")).longValue();
            String special = switch ((int) (unixMode & 0170000)) {
                case 0020000 -> "char-device";
                case 0060000 -> "block-device";
                case 0010000 -> "fifo";
                case 0140000 -> "socket";
                default -> null;
            };
            if (special != null) {
                o.put("type", special);
                long rdev = ((Number) Files.getAttribute(f, "unix:rdev")).longValue();
                // glibc's gnu_dev_major/minor: the kernel's 32-bit dev_t spread over 64 bits
                o.put("device_major", ((rdev >>> 32) & 0xfffff000L) | ((rdev >>> 8) & 0xfffL))
                        .put("device_minor", ((rdev >>> 12) & 0xffffff00L) | (rdev & 0xffL));
            }
            o.put("gid", ((Number) Files.getAttribute(f, "unix:gid")).longValue());
            java.nio.file.attribute.FileTime ctime = (java.nio.file.attribute.FileTime) Files.getAttribute(f, "unix:ctime");
            o.put("ctime_age_seconds", Math.max(0, Duration.between(ctime.toInstant(), ctx.clock().instant()).getSeconds()));
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            // The unix: view is Linux's own; without it the portable fields above are what there is.
        }
    }

    /** As the config writes modes once loaded: four octal digits, "0644", "4755". */
    static String mode(long bits) {
        String digits = Long.toOctalString(bits & 07777);
        return "0000".substring(Math.min(4, digits.length())) + digits;
    }

    /** "permission denied", "Is a directory": the reason, since the path is the entity already. */
    private static String why(IOException e) {
        if (e instanceof java.nio.file.AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof java.nio.file.FileSystemException fse && fse.getReason() != null) {
            return fse.getReason();
        }
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }

    private static boolean isUid(String owner) {
        return !owner.isEmpty() && owner.length() < 11 && owner.chars().allMatch(Character::isDigit);
    }

    /**
     * Whether a line of the file's first {@link #CONTENT_MAX} bytes matches, read as a stream: the
     * daemon's heap is small and checks run side by side, so the file is never held whole. A line
     * longer than {@link #LINE_MAX} is matched in pieces of that length. Only a regular file is
     * opened: a FIFO would block the check forever, a device could be endless. Each line is
     * matched with a bound ({@link BoundedRegex}): the file may be one a user writes. When the
     * regex gave up on a line and no other line matched, the answer is not known; after
     * {@link #GAVE_UP_MAX} such lines the search stops there.
     */
    static BoundedRegex.Result containsLine(Path f, Pattern pattern) throws IOException {
        try (OpenedFile file = OpenedFile.open(f.toAbsolutePath(), false);
             Reader in = new InputStreamReader(Files.newInputStream(Path.of(file.execPath())), StandardCharsets.UTF_8)) {
            LineSearch search = new LineSearch(pattern);
            StringBuilder line = new StringBuilder();
            char[] buf = new char[8192];
            long left = CONTENT_MAX;
            int n;
            while (left > 0 && (n = in.read(buf, 0, (int) Math.min(buf.length, left))) > 0) {
                left -= n;
                for (int i = 0; i < n; i++) {
                    char c = buf[i];
                    if (c == '\n' || line.length() >= LINE_MAX) {
                        if (search.done(line)) {
                            return search.result();
                        }
                        line.setLength(0);
                        if (c == '\n') {
                            continue;
                        }
                    }
                    line.append(c);
                }
            }
            search.done(line);
            return search.result();
        }
    }

    /** The search over a file's lines: found, or how many lines the regex gave up on. */
    private static final class LineSearch {
        private final Pattern pattern;
        private boolean found;
        private int gaveUp;

        LineSearch(Pattern pattern) {
            this.pattern = pattern;
        }

        /** Matches one line; true when the search is over (found, or too many lines given up on). */
        boolean done(CharSequence line) {
            BoundedRegex.Result r = BoundedRegex.find(pattern, line);
            found = r.matched();
            if (r == BoundedRegex.Result.GAVE_UP) {
                gaveUp++;
            }
            return found || gaveUp >= GAVE_UP_MAX;
        }

        BoundedRegex.Result result() {
            return found ? BoundedRegex.Result.MATCH : gaveUp > 0 ? BoundedRegex.Result.GAVE_UP : BoundedRegex.Result.NO_MATCH;
        }
    }
}
