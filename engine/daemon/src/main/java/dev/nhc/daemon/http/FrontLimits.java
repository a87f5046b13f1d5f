package dev.nhc.daemon.http;

import java.time.Duration;

/**
 * What clients may make an {@link HttpFront} hold, and for how long: a request head must be
 * complete within {@code head}, a connection may idle {@code idle} between requests, a client must
 * take its answer within {@code write}; at most {@code maxConnections} connections, {@code perClient}
 * from one address, {@code maxRelayed} relayed to the server behind; head buffers together at most
 * {@code headBudget} bytes.
 */
public record FrontLimits(Duration head, Duration idle, Duration write, int maxConnections, int perClient, int maxRelayed,
                          long headBudget) {
    public FrontLimits withDeadlines(Duration head, Duration idle, Duration write) {
        return new FrontLimits(head, idle, write, maxConnections, perClient, maxRelayed, headBudget);
    }

    public FrontLimits withConnections(int maxConnections, int perClient) {
        return new FrontLimits(head, idle, write, maxConnections, perClient, maxRelayed, headBudget);
    }

    public FrontLimits withHeadBudget(long headBudget) {
        return new FrontLimits(head, idle, write, maxConnections, perClient, maxRelayed, headBudget);
    }
}
