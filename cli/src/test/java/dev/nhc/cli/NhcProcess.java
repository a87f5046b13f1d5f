package dev.nhc.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs the packaged {@code bin/nhc} as a user would, as a separate process. */
final class NhcProcess {
    static final Path APP = Path.of(System.getProperty("nhc.app", "target/nhc")).toAbsolutePath();
    static final Path TEST_CLASSES = Path.of(System.getProperty("nhc.testClasses", "target/test-classes")).toAbsolutePath();

    record Result(int exit, String out, String err, long millis) {
    }

    private NhcProcess() {
    }

    static Process start(Map<String, String> env, Path workDir, String... args) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(APP.resolve("bin/nhc").toString());
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().remove("SLURMD_NODENAME");
        pb.environment().putAll(env);
        pb.redirectOutput(workDir.resolve("stdout." + System.nanoTime()).toFile());
        pb.redirectError(workDir.resolve("stderr." + System.nanoTime()).toFile());
        return pb.start();
    }

    static Result run(Path workDir, Map<String, String> env, String... args) throws Exception {
        Path out = Files.createTempFile(workDir, "out", ".txt");
        Path err = Files.createTempFile(workDir, "err", ".txt");
        List<String> cmd = new ArrayList<>();
        cmd.add(APP.resolve("bin/nhc").toString());
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile());
        pb.environment().remove("SLURMD_NODENAME");
        pb.environment().putAll(env);
        long t0 = System.nanoTime();
        Process p = pb.start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("nhc " + String.join(" ", args) + " did not exit within 120 s");
        }
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8), ms);
    }

    /** Test probes (test.hang, test.wait) come from the test classes, the way a site adds a jar. */
    static Map<String, String> withTestProbes() {
        return Map.of("NHC_EXTRA_CLASSPATH", TEST_CLASSES.toString());
    }
}
