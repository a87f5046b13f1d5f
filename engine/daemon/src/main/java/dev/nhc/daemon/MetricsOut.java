package dev.nhc.daemon;

/**
 * Where a {@link DaemonPlugin} writes its metrics at scrape time: samples by name, with label
 * pairs ({@code "device", "mlx5_0", "port", "1"}); samples of one name form one metric. The daemon
 * adds its constant labels, so plugins need no Prometheus types of their own.
 */
public interface MetricsOut {

    void gauge(String name, String help, double value, String... labelPairs);

    /** A monotonically increasing count; {@code name} without the {@code _total} suffix. */
    void counter(String name, String help, double value, String... labelPairs);
}
