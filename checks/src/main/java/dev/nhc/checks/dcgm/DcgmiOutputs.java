package dev.nhc.checks.dcgm;

import dev.nhc.checks.capture.CaptureFile;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Captured dcgmi output that replaces running dcgmi ({@code nhc replay --dcgmi-health-json FILE
 * --dcgmi-diag-json FILE}). Provided to probes through {@code ProbeContext.service(DcgmiOutputs.class)};
 * when it is present the DCGM probes never start dcgmi, and a probe whose capture is missing is
 * skipped. Text captures of {@code dcgmi diag} (without {@code -j}) are accepted too.
 */
public record DcgmiOutputs(String healthJson, String diagJson, String healthSource, String diagSource) {

    public Optional<String> health() {
        return Optional.ofNullable(healthJson);
    }

    public Optional<String> diag() {
        return Optional.ofNullable(diagJson);
    }

    /**
     * Reads the given capture files; either may be null. The file names appear in messages; a file
     * too large or not text is {@link CaptureFile.Refused}.
     */
    public static DcgmiOutputs read(Path healthFile, Path diagFile) throws IOException {
        return new DcgmiOutputs(read(healthFile), read(diagFile),
                healthFile == null ? null : healthFile.toString(), diagFile == null ? null : diagFile.toString());
    }

    private static String read(Path p) throws IOException {
        if (p == null) {
            return null;
        }
        try {
            return CaptureFile.readText(p);
        } catch (CaptureFile.Refused e) {
            throw e;
        } catch (IOException e) {
            throw new IOException("cannot read dcgmi capture " + p + ": " + e.getMessage(), e);
        }
    }
}
