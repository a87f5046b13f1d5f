package dev.nhc.units;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;

class DurationsTest {
    @Test
    void humanDurations() {
        assertEquals("500ms", Durations.human(Duration.ofMillis(500)));
        assertEquals("45s", Durations.human(Duration.ofSeconds(45)));
        assertEquals("6h", Durations.human(Duration.ofHours(6)));
        assertEquals("90m", Durations.human(Duration.ofMinutes(90)));
        assertEquals("3h30m", Durations.human(Duration.ofMinutes(210)));
        assertEquals("2d", Durations.human(Duration.ofDays(2)));
        assertEquals("0ms", Durations.human(Duration.ofSeconds(-3)));
    }
}
