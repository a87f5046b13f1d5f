package dev.nhc.daemon;

import dev.nhc.daemon.http.HttpAnswer;
import dev.nhc.daemon.http.RequestHead;
import io.prometheus.metrics.config.PrometheusProperties;
import io.prometheus.metrics.exporter.common.PrometheusHttpExchange;
import io.prometheus.metrics.exporter.common.PrometheusHttpRequest;
import io.prometheus.metrics.exporter.common.PrometheusHttpResponse;
import io.prometheus.metrics.exporter.common.PrometheusScrapeHandler;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.Collections;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * {@code GET /metrics} through the Prometheus client's own scrape handler (content negotiation by
 * Accept, gzip, {@code name[]=} filters), into memory: the front writes the answer. Requests for the
 * same thing within a second share one scrape ({@link RecentAnswer}).
 */
final class ScrapeAnswers {
    private final PrometheusScrapeHandler handler;
    private final RecentAnswer recent = new RecentAnswer();

    ScrapeAnswers(PrometheusRegistry registry) {
        this.handler = new PrometheusScrapeHandler(PrometheusProperties.get(), registry);
    }

    CompletableFuture<HttpAnswer> answer(RequestHead h, Function<Supplier<HttpAnswer>, CompletableFuture<HttpAnswer>> onWorker) {
        String key = h.query() + "|" + h.headers("Accept") + "|" + h.headers("Accept-Encoding");
        return recent.get(null, key, () -> onWorker.apply(() -> scrape(h)));
    }

    private HttpAnswer scrape(RequestHead h) {
        Exchange ex = new Exchange(h);
        try {
            handler.handleRequest(ex);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return ex.answer();
    }

    /** One scrape: the request as the front read it, the response into memory. */
    private static final class Exchange implements PrometheusHttpExchange, PrometheusHttpRequest, PrometheusHttpResponse {
        private final RequestHead head;
        private final Map<String, String> headers = new LinkedHashMap<>();
        private final ByteArrayOutputStream body = new ByteArrayOutputStream();
        private int status = 500;

        Exchange(RequestHead head) {
            this.head = head;
        }

        HttpAnswer answer() {
            String type = headers.remove("Content-Type");
            headers.remove("Content-Length");
            return new HttpAnswer(status, status == 200 ? "OK" : "Error", type, Map.copyOf(headers), body.toByteArray());
        }

        @Override
        public PrometheusHttpRequest getRequest() {
            return this;
        }

        @Override
        public PrometheusHttpResponse getResponse() {
            return this;
        }

        @Override
        public void handleException(IOException e) throws IOException {
            throw e;
        }

        @Override
        public void handleException(RuntimeException e) {
            throw e;
        }

        @Override
        public void close() {
            // nothing held
        }

        @Override
        public String getQueryString() {
            return head.query();
        }

        @Override
        public Enumeration<String> getHeaders(String name) {
            return Collections.enumeration(head.headers(name));
        }

        @Override
        public String getMethod() {
            return "GET"; // a HEAD request's body is left out by the front
        }

        @Override
        public String getRequestPath() {
            return head.path();
        }

        @Override
        public void setHeader(String name, String value) {
            headers.put(name, value);
        }

        @Override
        public OutputStream sendHeadersAndGetBody(int statusCode, int contentLength) {
            this.status = statusCode;
            return body;
        }
    }
}
