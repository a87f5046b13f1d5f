package dev.nhc.cli;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The .deb and the .rpm of {@code mvn -Ppackages}, read with dpkg-deb and rpm as an admin would: the
 * layout, owners, modes, the conffile, the links, the maintainer scripts, and the runtime with its
 * archive. Runs only in that profile (it sets nhc.packages); .ci/run installs the .deb afterwards.
 */
class PackageIT {
    private static Path target;
    private static Path stage;
    private static final String VERSION = "0.1.0";
    /** A maintainer script line (not a comment) that enables or starts a unit. */
    private static final java.util.regex.Pattern START = java.util.regex.Pattern.compile(
            "(?m)^[^#\\n]*(systemctl\\s+(enable|start|restart|try-restart|reload-or-restart)|deb-systemd-invoke|invoke-rc\\.d)");

    /** One entry of a package: "-rwxr-xr-x", owner "root/root", the link target or null. */
    record Entry(String perms, String owner, String link) {
    }

    @BeforeAll
    static void packagesWereBuilt() {
        String dir = System.getProperty("nhc.packages");
        assumeTrue(dir != null, "packages are built with -Ppackages");
        target = Path.of(dir);
        stage = Path.of(System.getProperty("nhc.packageStage"));
    }

    private static Path one(String glob) throws IOException {
        List<Path> found = new ArrayList<>();
        try (var s = Files.newDirectoryStream(target, glob)) {
            s.forEach(found::add);
        }
        assertEquals(1, found.size(), "one " + glob + " in " + target + ": " + found);
        return found.get(0);
    }

    private static String exec(String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), String.join(" ", cmd) + " did not finish");
        assertEquals(0, p.exitValue(), String.join(" ", cmd) + ": " + out);
        return out;
    }

    private static boolean onPath(String tool) {
        return Stream.of(System.getenv().getOrDefault("PATH", "").split(":")).anyMatch(d -> Files.isExecutable(Path.of(d, tool)));
    }

    /** dpkg-deb -c: "drwxr-xr-x root/root 0 2026-11-25 08:00 ./opt/nhc/" and "lrwxrwxrwx ... ./usr/bin/nhc -> /opt/nhc/bin/nhc". */
    private static Map<String, Entry> debEntries(Path deb) throws Exception {
        Map<String, Entry> entries = new TreeMap<>();
        for (String line : exec("dpkg-deb", "-c", deb.toString()).split("\n")) {
            String[] f = line.trim().split("\\s+", 6);
            String name = f[5];
            String link = null;
            int arrow = name.indexOf(" -> ");
            if (arrow >= 0) {
                link = name.substring(arrow + 4);
                name = name.substring(0, arrow);
            }
            name = name.replaceFirst("^\\./", "/");
            if (name.length() > 1 && name.endsWith("/")) {
                name = name.substring(0, name.length() - 1);
            }
            entries.put(name, new Entry(f[0], f[1], link));
        }
        return entries;
    }

    /** rpm -qp: one line per file, "perms owner group flags path link". */
    private static Map<String, Entry> rpmEntries(Path rpm, Map<String, String> flags) throws Exception {
        Map<String, Entry> entries = new TreeMap<>();
        String out = exec("rpm", "-qp", "--qf", "[%{FILEMODES:perms}\\t%{FILEUSERNAME}\\t%{FILEGROUPNAME}\\t%{FILEFLAGS:fflags}\\t%{FILENAMES}\\t%{FILELINKTOS}\\n]", rpm.toString());
        for (String line : out.split("\n")) {
            String[] f = line.split("\t", -1);
            entries.put(f[4], new Entry(f[0], f[1] + "/" + f[2], f[5].isEmpty() ? null : f[5]));
            flags.put(f[4], f[3]);
        }
        return entries;
    }

    /** Every file and directory of the staged /opt/nhc with the mode it must have in both packages. */
    private static Map<String, String> stagedOpt() throws IOException {
        Map<String, String> modes = new LinkedHashMap<>();
        Path opt = stage.resolve("opt/nhc");
        try (Stream<Path> walk = Files.walk(opt)) {
            for (Path p : (Iterable<Path>) walk::iterator) {
                String perms = PosixFilePermissions.toString(Files.getPosixFilePermissions(p, java.nio.file.LinkOption.NOFOLLOW_LINKS));
                modes.put("/opt/nhc" + (p.equals(opt) ? "" : "/" + opt.relativize(p)), (Files.isDirectory(p) ? "d" : "-") + perms);
            }
        }
        return modes;
    }

    private static void assertSafe(Map<String, Entry> entries, String pkg) {
        entries.forEach((name, e) -> {
            assertEquals("root/root", e.owner(), pkg + ": owner of " + name);
            if (e.link() == null) {
                assertEquals('-', e.perms().charAt(5), pkg + ": group-writable " + name + " " + e.perms());
                assertEquals('-', e.perms().charAt(8), pkg + ": world-writable " + name + " " + e.perms());
            }
        });
    }

    private static void assertLayout(Map<String, Entry> entries, String pkg, String unitDir) throws IOException {
        Map<String, String> staged = stagedOpt();
        staged.forEach((name, perms) -> {
            Entry e = entries.get(name);
            if (e == null) {
                fail(pkg + ": staged " + name + " is not in the package");
            }
            assertEquals(perms, e.perms(), pkg + ": mode of " + name);
        });
        // bin/nhc-slurm asks the daemon only through an executable socket client ([ -x ]).
        for (String exe : List.of("/opt/nhc/bin/nhc", "/opt/nhc/bin/nhc-slurm", "/opt/nhc/lib/native/nhc-slurm-ask",
                "/opt/nhc/runtime/bin/java", "/opt/nhc/runtime/lib/jspawnhelper")) {
            assertEquals("-rwxr-xr-x", staged.get(exe), pkg + ": " + exe);
        }
        assertEquals("-rw-r--r--", staged.get("/opt/nhc/lib/nhc-" + VERSION + ".jar"), pkg);
        assertTrue(staged.keySet().stream().anyMatch(n -> n.matches("/opt/nhc/lib/cds/nhc-17[^/]*\\.jsa")), pkg + ": the class-data archive");
        assertTrue(staged.containsKey("/opt/nhc/runtime/lib/server/classes.jsa"), pkg + ": the runtime's base archive");
        assertEquals("-rw-r--r--", entries.get("/etc/nhc/nhc.yaml").perms(), pkg);
        assertEquals("drwx------", entries.get("/var/lib/nhc").perms(), pkg);
        assertEquals("/opt/nhc/bin/nhc", entries.get("/usr/bin/nhc").link(), pkg);
        assertEquals("/opt/nhc/bin/nhc-slurm", entries.get("/usr/sbin/nhc-slurm").link(), pkg);
        for (String unit : List.of("nhc-daemon.service", "nhc-run.service", "nhc-run.timer")) {
            assertEquals("-rw-r--r--", entries.get(unitDir + "/" + unit).perms(), pkg + ": " + unit);
        }
        assertEquals("-rw-r--r--", entries.get("/usr/share/bash-completion/completions/nhc").perms(), pkg);
        entries.forEach((name, e) -> assertFalse(name.startsWith("/opt/nhc") && e.link() != null, pkg + ": a link in /opt/nhc: " + name));
        // Nothing beyond what the layout names (parent directories aside).
        for (String name : entries.keySet()) {
            boolean ours = name.startsWith("/opt/nhc") || name.startsWith("/etc/nhc") || name.equals("/var/lib/nhc")
                    || name.equals("/usr/bin/nhc") || name.equals("/usr/sbin/nhc-slurm") || name.startsWith(unitDir + "/nhc-")
                    || name.equals("/usr/share/bash-completion/completions/nhc");
            boolean parent = entries.keySet().stream().anyMatch(other -> other.startsWith(name + "/")) && !name.startsWith("/opt/nhc/");
            assertTrue(ours || parent, pkg + ": unexpected " + name);
        }
    }

    @Test
    void debLayoutModesOwnersConffileAndScripts() throws Exception {
        assumeTrue(onPath("dpkg-deb"), "dpkg-deb");
        Path deb = one("nhc_" + VERSION + "_*.deb");
        Map<String, Entry> entries = debEntries(deb);
        assertSafe(entries, "deb");
        assertLayout(entries, "deb", "/lib/systemd/system");

        assertEquals("/etc/nhc/nhc.yaml", exec("dpkg-deb", "-I", deb.toString(), "conffiles").trim());
        String info = exec("dpkg-deb", "-I", deb.toString());
        assertTrue(info.contains("Package: nhc\n"), info);
        assertTrue(info.contains("Version: " + VERSION + "\n"), info);
        assertTrue(info.matches("(?s).*Architecture: (amd64|arm64)\n.*"), info);
        // dpkg-deb -I marks executable control members with '*'
        for (String script : List.of("preinst", "postinst", "prerm", "postrm")) {
            assertTrue(info.matches("(?s).*\\*\\s+" + script + "\\s+#!/bin/sh.*"), script + " executable: " + info);
        }
        String postinst = exec("dpkg-deb", "-I", deb.toString(), "postinst");
        assertTrue(postinst.contains("systemctl daemon-reload"), postinst);
        assertFalse(START.matcher(postinst).find(), "no service is enabled or started: " + postinst);
        assertTrue(exec("dpkg-deb", "-I", deb.toString(), "postrm").contains("purge"), "purge removes the state");
        // A /var/lib/nhc made before the package (by a run from the build) is made root's alone all the same.
        assertTrue(postinst.contains("chmod 0700 /var/lib/nhc"), postinst);
        // /opt is the system's: listed by nhc alone, dpkg would try to remove it on purge and warn that it is not empty.
        assertFalse(entries.containsKey("/opt"), "the .deb lists /opt itself");

        // The runtime's exact version names the shipped archive (the launcher looks it up by that name).
        Path x = Files.createTempDirectory("nhc-deb");
        exec("dpkg-deb", "-x", deb.toString(), x.toString());
        // Every file as staged, byte for byte (the .deb is rewritten after jdeb; see drop-opt-entry.sh).
        try (Stream<Path> walk = Files.walk(stage)) {
            for (Path staged : (Iterable<Path>) walk.filter(Files::isRegularFile)::iterator) {
                Path unpacked = x.resolve(stage.relativize(staged).toString());
                assertEquals(-1L, Files.mismatch(staged, unpacked), "deb: " + stage.relativize(staged) + " differs from the staged file");
            }
        }
        String release = Files.readString(x.resolve("opt/nhc/runtime/release"));
        String version = release.lines().filter(l -> l.startsWith("JAVA_RUNTIME_VERSION=")).findFirst().orElseThrow()
                .replaceFirst("^JAVA_RUNTIME_VERSION=\"?([^\"]*)\"?$", "$1");
        assertTrue(Files.isRegularFile(x.resolve("opt/nhc/lib/cds/nhc-" + version + ".jsa")), "archive for " + version);
        String modules = release.lines().filter(l -> l.startsWith("MODULES=")).findFirst().orElseThrow();
        for (String m : List.of("java.base", "jdk.httpserver", "jdk.unsupported", "java.net.http")) {
            assertTrue(modules.contains(m), m + " in " + modules);
        }
        assertFalse(modules.contains("java.desktop"), "only the modules nhc uses: " + modules);
        exec("rm", "-rf", x.toString());
    }

    @Test
    void rpmLayoutModesOwnersConfigNoreplaceAndScripts() throws Exception {
        assumeTrue(onPath("rpm"), "rpm (Debian: apt-get install rpm) reads the .rpm");
        Path rpm = one("nhc-" + VERSION + "-1.*.rpm");
        Map<String, String> flags = new TreeMap<>();
        Map<String, Entry> entries = rpmEntries(rpm, flags);
        assertSafe(entries, "rpm");
        assertLayout(entries, "rpm", "/usr/lib/systemd/system");
        assertEquals("cn", flags.get("/etc/nhc/nhc.yaml"), "%config(noreplace)");

        String listed = exec("rpm", "-qlp", rpm.toString());
        assertTrue(listed.lines().anyMatch("/opt/nhc/bin/nhc"::equals), listed);
        String scripts = exec("rpm", "-qp", "--scripts", rpm.toString());
        assertTrue(scripts.contains("postinstall scriptlet") && scripts.contains("systemctl daemon-reload"), scripts);
        assertFalse(START.matcher(scripts).find(), "no service is enabled or started: " + scripts);
        String info = exec("rpm", "-qip", rpm.toString());
        assertTrue(info.matches("(?s).*Name\\s*:\\s*nhc\n.*Version\\s*:\\s*" + VERSION.replace(".", "\\.") + "\n.*"), info);
    }
}
