package dev.nhc.daemon.http;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;

class BadConnectionLogTest {
    @Test
    void aFloodOfBadConnectionsIsAFewLinesAMinute() {
        List<String> lines = new ArrayList<>();
        AtomicLong now = new AtomicLong(1_000);
        BadConnectionLog log = new BadConnectionLog(lines::add, "status endpoints", now::get);
        for (int i = 0; i < 1000; i++) {
            log.bad("127.0.0.1: Connection reset by peer");
        }
        assertEquals(BadConnectionLog.PER_MINUTE, lines.size());
        assertEquals("status endpoints: 127.0.0.1: Connection reset by peer", lines.get(0));
        now.addAndGet(61_000_000_000L);
        log.bad("10.0.0.7: the request head did not arrive within 10 s (408)");
        assertEquals(List.of("status endpoints: 990 more bad connections were not logged one by one in the last minute",
                "status endpoints: 10.0.0.7: the request head did not arrive within 10 s (408)"),
                lines.subList(BadConnectionLog.PER_MINUTE, lines.size()));
        assertEquals(1001, log.count());
    }
}
