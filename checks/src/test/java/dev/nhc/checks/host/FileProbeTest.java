package dev.nhc.checks.host;

import dev.nhc.engine.config.ConfigException;
import dev.nhc.engine.testing.TestProbeContext;
import dev.nhc.model.Entity;
import dev.nhc.model.Finding;
import dev.nhc.model.Observation;
import dev.nhc.model.Severity;
import dev.nhc.probe.ProbeResult;
import dev.nhc.rules.testing.Pipeline;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FileProbeTest {
    @TempDir
    Path root;

    private Observation observe(String with) {
        ProbeResult r = new FileProbe().probe(new TestProbeContext(root).with(new FileProbe().spec(), with));
        assertEquals(1, r.observations().size(), r.observations().toString());
        return r.observations().get(0);
    }

    private Finding judge(String with) throws Exception {
        return Pipeline.only(new Pipeline(root, new FileProbe()).run("- { name: marker, use: file, with: " + with + " }"), "marker");
    }

    private Path file(String text, String perms) throws Exception {
        Path p = root.resolve("etc/nhc/marker");
        Files.createDirectories(p.getParent());
        Files.writeString(p, text);
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(perms));
        return p;
    }

    @Test
    void observesWhatTheFileIs() throws Exception {
        file("healthy=yes\n", "rw-r--r--");
        String owner = Files.getOwner(root.resolve("etc/nhc/marker")).getName();
        Observation o = observe("{ path: /etc/nhc/marker, mode: \"0644\", owner: " + owner + ", max_age: 1h, contains: \"^healthy=yes$\" }");
        assertEquals(Entity.of(Entity.Kind.PATH, "/etc/nhc/marker"), o.entity());
        assertEquals(true, o.get("exists"));
        assertEquals("0644", o.get("mode"));
        assertEquals(owner, o.get("owner"));
        assertEquals(Files.getAttribute(root.resolve("etc/nhc/marker"), "unix:uid"), ((Long) o.get("uid")).intValue());
        assertEquals(true, o.get("owner_matches"));
        assertEquals(12L, o.get("size"));
        assertTrue((Long) o.get("age_seconds") < 3600);
        assertEquals(true, o.get("contents_match"), "^ and $ match at line ends");
        assertEquals(true, o.get("contents_readable"));
    }

    @Test
    void fieldsOfParametersNotGivenAreNotObserved() throws Exception {
        file("x", "rw-------");
        Observation o = observe("{ path: /etc/nhc/marker }");
        assertNull(o.get("owner_matches"));
        assertNull(o.get("contents_match"));
        assertEquals("0600", o.get("mode"));
    }

    @Test
    void observesTheTypeAccessGroupAndDeviceNumbersLbnlsFileChecksAsk() throws Exception {
        Path tmp = root.resolve("tmp");
        Files.createDirectories(tmp);
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxrwxrwx"));
        Files.setAttribute(tmp, "unix:mode", 01777);
        Observation dir = observe("{ path: /tmp }");
        assertEquals("directory", dir.get("type"));
        assertEquals("1777", dir.get("mode"), "the sticky bit shows as the first digit");
        assertEquals(true, dir.get("readable"));
        assertEquals(true, dir.get("writable"));
        assertEquals(true, dir.get("executable"));
        assertEquals(false, dir.get("symlink"));
        assertEquals(((Number) Files.getAttribute(tmp, "unix:gid")).longValue(), dir.get("gid"));
        assertTrue(dir.get("ctime_age_seconds") instanceof Long);
        Files.createDirectories(root.resolve("dev"));
        Files.createSymbolicLink(root.resolve("dev/null"), Path.of("/dev/null"));
        Observation devnull = observe("{ path: /dev/null }");
        assertEquals("char-device", devnull.get("type"));
        assertEquals(1L, devnull.get("device_major"));
        assertEquals(3L, devnull.get("device_minor"));
        assertEquals(true, devnull.get("symlink"), "the path is a link to the device");
        file("x", "rw-r--r--");
        Observation plain = observe("{ path: /etc/nhc/marker }");
        assertEquals("regular", plain.get("type"));
        assertEquals(false, plain.get("executable"));
        assertNull(plain.get("device_major"));
    }

    @Test
    void passesWhenAllHold() throws Exception {
        Path p = file("healthy=yes\n", "rw-r--r--");
        Finding f = judge("{ path: /etc/nhc/marker, mode: 644, owner: " + Files.getOwner(p).getName() + ", max_age: 1h, contains: \"^healthy=yes$\" }");
        assertEquals(Severity.PASS, f.severity(), f.message());
        assertEquals("/etc/nhc/marker", f.entity().label());
    }

    @Test
    void eachMismatchIsNamed() throws Exception {
        Path p = file("healthy=no\n", "rwxrwxrwx");
        Files.setLastModifiedTime(p, FileTime.from(Instant.now().minus(Duration.ofDays(2))));
        String owner = Files.getOwner(p).getName();
        long uid = ((Number) Files.getAttribute(p, "unix:uid")).longValue();

        Finding mode = judge("{ path: /etc/nhc/marker, mode: \"0644\" }");
        assertEquals(Severity.FAIL, mode.severity());
        assertEquals("/etc/nhc/marker: mode 0777, expected 0644", mode.message());

        Finding byUid = judge("{ path: /etc/nhc/marker, owner: \"4242\" }");
        assertEquals(Severity.FAIL, byUid.severity());
        assertEquals("/etc/nhc/marker: owner " + owner + " (uid " + uid + "), expected 4242", byUid.message());
        assertEquals(Severity.PASS, judge("{ path: /etc/nhc/marker, owner: \"" + uid + "\" }").severity(), "a uid matches by number");
        assertEquals(Severity.FAIL, judge("{ path: /etc/nhc/marker, owner: nobody-at-all }").severity());

        Finding age = judge("{ path: /etc/nhc/marker, max_age: 1h }");
        assertEquals(Severity.FAIL, age.severity());
        assertTrue(age.message().matches("/etc/nhc/marker: last modified 1728\\d\\ds ago, more than 3600s"), age.message());

        Finding contents = judge("{ path: /etc/nhc/marker, contains: healthy=yes }");
        assertEquals(Severity.FAIL, contents.severity());
        assertEquals("/etc/nhc/marker: does not contain /healthy=yes/", contents.message());

        // all at once: the first in the order existence, mode, owner, age, contents
        Finding first = judge("{ path: /etc/nhc/marker, mode: \"0644\", owner: \"4242\", max_age: 1h, contains: healthy=yes }");
        assertEquals("/etc/nhc/marker: mode 0777, expected 0644", first.message());
    }

    @Test
    void specialBitsCompareAsTheConfigWritesThem() throws Exception {
        Path p = file("x", "rwxr-xr-x");
        Files.setAttribute(p, "unix:mode", 04755);
        assertEquals("4755", observe("{ path: /etc/nhc/marker }").get("mode"));
        assertEquals(Severity.PASS, judge("{ path: /etc/nhc/marker, mode: \"04755\" }").severity());
        assertEquals("/etc/nhc/marker: mode 4755, expected 0755", judge("{ path: /etc/nhc/marker, mode: \"0755\" }").message());
    }

    @Test
    void existence() throws Exception {
        Finding missing = judge("{ path: /etc/nhc/marker, mode: \"0644\" }");
        assertEquals(Severity.FAIL, missing.severity());
        assertEquals("/etc/nhc/marker does not exist", missing.message());
        assertEquals(Severity.PASS, judge("{ path: /etc/nhc/marker, exists: false }").severity());
        file("x", "rw-------");
        Finding there = judge("{ path: /etc/nhc/marker, exists: false }");
        assertEquals(Severity.FAIL, there.severity());
        assertEquals("/etc/nhc/marker exists but should not", there.message());
    }

    @Test
    void contentsThatCannotBeReadAreUnknownUnlessSomethingElseFails() throws Exception {
        Files.createDirectories(root.resolve("etc/nhc/marker.d"));
        Files.setPosixFilePermissions(root.resolve("etc/nhc/marker.d"), PosixFilePermissions.fromString("rwxr-xr-x"));
        Finding f = judge("{ path: /etc/nhc/marker.d, contains: x }");
        assertEquals(Severity.UNKNOWN, f.severity());
        assertEquals("/etc/nhc/marker.d: cannot read its contents: is a directory, not a regular file", f.message());
        assertEquals(Severity.FAIL, judge("{ path: /etc/nhc/marker.d, contains: x, mode: \"0700\" }").severity());
    }

    /** A FIFO would block the check forever: it is not opened. */
    @Test
    void aFifoIsNotRead() throws Exception {
        Path fifo = root.resolve("etc/nhc/marker");
        Files.createDirectories(fifo.getParent());
        assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor());
        Finding f = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(10),
                () -> judge("{ path: /etc/nhc/marker, contains: x }"));
        assertEquals(Severity.UNKNOWN, f.severity());
        assertEquals("/etc/nhc/marker: cannot read its contents: is a FIFO, not a regular file", f.message());
    }

    /**
     * A file a user writes and an admin's regex that backtracks without end on a crafted line: the
     * line is given up on, not waited for, and with no line matching the answer is not known
     * (never a false "does not contain").
     */
    @Test
    void aRegexThatGivesUpOnAUsersLineIsUnknownNotAMiss() throws Exception {
        file("status: " + "a".repeat(40) + "!\n", "rw-r--r--");
        Finding f = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(30),
                () -> judge("{ path: /etc/nhc/marker, contains: \"status: (.*a){20}x\" }"));
        assertEquals(Severity.UNKNOWN, f.severity());
        assertTrue(f.message().startsWith("/etc/nhc/marker: cannot read its contents: the 'contains' regex gave up on a line (it read more than "),
                f.message());
        file("status: " + "a".repeat(40) + "!\nstatus: ok x\n", "rw-r--r--");
        assertEquals(Severity.PASS, judge("{ path: /etc/nhc/marker, contains: \"status: (.*a){20}x|status: ok\" }").severity(),
                "a later line that matches still decides");
    }

    /** The file is read as a stream of lines: a match far in, or on a line longer than one piece, is found. */
    @Test
    void aLongFileIsMatchedLineByLine() throws Exception {
        Path big = root.resolve("big");
        Files.writeString(big, "x".repeat(3 * FileProbe.LINE_MAX) + "\n" + "filler\n".repeat(100_000) + "healthy=yes\nend");
        assertTrue(FileProbe.containsLine(big, java.util.regex.Pattern.compile("^healthy=yes$", java.util.regex.Pattern.MULTILINE)).matched());
        assertTrue(FileProbe.containsLine(big, java.util.regex.Pattern.compile("^end$", java.util.regex.Pattern.MULTILINE)).matched());
        assertEquals(dev.nhc.text.BoundedRegex.Result.NO_MATCH,
                FileProbe.containsLine(big, java.util.regex.Pattern.compile("^healthy=no$", java.util.regex.Pattern.MULTILINE)));
    }

    @Test
    void aSitesFailReplacesTheDefaults() throws Exception {
        file("x", "rwxrwxrwx");
        Finding f = Pipeline.only(new Pipeline(root, new FileProbe()).run("""
                - name: marker
                  use: file
                  with: { path: /etc/nhc/marker, mode: "0644" }
                  fail: { size: "> 1KiB" }
                  warn: { mode: "!= 0644" }
                """), "marker");
        assertEquals(Severity.WARN, f.severity());
        assertEquals("/etc/nhc/marker: mode is '0777', not '0644'", f.message());
    }

    @Test
    void aBadModeRegexOrPathIsAConfigError() {
        Pipeline p = new Pipeline(root, new FileProbe());
        ConfigException mode = assertThrows(ConfigException.class,
                () -> p.plan("- { name: marker, use: file, with: { path: /etc/nhc/marker, mode: rw-r--r-- } }"));
        assertTrue(mode.getMessage().matches("(?s)nhc\\.yaml:\\d+:\\d+: .*'mode'.*octal.*"), mode.getMessage());
        ConfigException regex = assertThrows(ConfigException.class,
                () -> p.plan("- { name: marker, use: file, with: { path: /etc/nhc/marker, contains: \"(\" } }"));
        assertTrue(regex.getMessage().matches("(?s)nhc\\.yaml:\\d+:\\d+: .*'contains'.*not a valid regular expression.*"), regex.getMessage());
        ConfigException relative = assertThrows(ConfigException.class,
                () -> p.plan("- { name: marker, use: file, with: { path: etc/marker } }"));
        assertTrue(relative.getMessage().matches("(?s)nhc\\.yaml:\\d+:\\d+: .*must be an absolute path.*"), relative.getMessage());
    }
}
