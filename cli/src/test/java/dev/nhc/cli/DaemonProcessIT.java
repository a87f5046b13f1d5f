package dev.nhc.cli;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code nhc daemon} as an admin starts it: by hand under nohup, then reloaded with SIGHUP. */
class DaemonProcessIT {
    @TempDir
    Path tmp;
    private Process daemon;

    @AfterEach
    void stop() throws Exception {
        if (daemon != null && daemon.isAlive()) {
            daemon.destroy();
            if (!daemon.waitFor(20, TimeUnit.SECONDS)) {
                daemon.destroyForcibly();
            }
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private String config(Path dir, int port, String checks) {
        return "nhc: 1\n"
                + "settings: { interval: 1s, state_dir: " + dir.resolve("state") + " }\n"
                + "daemon: { metrics_listen: 127.0.0.1:" + port + ", socket: " + dir.resolve("nhc.sock") + " }\n"
                + "checks:\n" + checks;
    }

    private static String get(String url) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).build(),
                HttpResponse.BodyHandlers.ofString());
        return r.body();
    }

    @Test
    void startedUnderNohupSighupStillReloadsAndTheStartLineSaysWhereItListens() throws Exception {
        Path dir = tmp.toRealPath();
        Files.writeString(dir.resolve("marker"), "");
        Path cfg = dir.resolve("nhc.yaml");
        int port = freePort();
        Files.writeString(cfg, config(dir, port, "  - { name: marker, use: file, with: { path: " + dir.resolve("marker") + " } }\n"));
        Path err = dir.resolve("daemon.err");
        // nohup's effect on the process: SIGHUP ignored before nhc starts. NHC_CDS=off: the launcher execs java.
        ProcessBuilder pb = new ProcessBuilder("/bin/sh", "-c", "trap '' HUP; exec \"$0\" daemon -c \"$1\"",
                NhcProcess.APP.resolve("bin/nhc").toString(), cfg.toString())
                .redirectOutput(dir.resolve("daemon.out").toFile()).redirectError(err.toFile());
        pb.environment().put("NHC_CDS", "off");
        daemon = pb.start();

        await().atMost(Duration.ofSeconds(60)).until(() -> Files.readString(err).contains("started on"));
        String start = Files.readString(err);
        assertTrue(start.contains(cfg.toString()), "names the config: " + start);
        assertTrue(start.contains("127.0.0.1:" + port) && start.contains(dir.resolve("nhc.sock").toString()), "names where it listens: " + start);
        assertTrue(start.contains("SIGHUP was ignored"), "says it took SIGHUP back: " + start);
        assertFalse(start.contains("reload by restarting"), start);

        Files.writeString(cfg, config(dir, port, "  - { name: marker, use: file, with: { path: " + dir.resolve("marker") + " } }\n"
                + "  - { name: marker-again, use: file, with: { path: " + dir.resolve("marker") + " } }\n"));
        Process kill = new ProcessBuilder("kill", "-HUP", Long.toString(daemon.pid())).inheritIO().start();
        assertTrue(kill.waitFor(10, TimeUnit.SECONDS) && kill.exitValue() == 0, "kill -HUP");
        await().atMost(Duration.ofSeconds(30)).until(() -> Files.readString(err).contains("reloaded " + cfg + " (2 checks)"));
        assertTrue(daemon.isAlive(), "SIGHUP reloads, it does not stop the daemon");
        await().atMost(Duration.ofSeconds(30)).until(() -> get("http://127.0.0.1:" + port + "/metrics")
                .contains("nhc_config_reloads_total{result=\"ok\"} 1.0"));
    }
}
