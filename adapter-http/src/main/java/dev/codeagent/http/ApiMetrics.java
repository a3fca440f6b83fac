package dev.codeagent.http;

import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.solving.RunStatus;
import jakarta.inject.Inject;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * The server's Prometheus metrics: executions by outcome with a latency histogram, runs by final
 * status, request latency by route and status, rejected requests by reason, and the fill of the
 * execution and run pools.
 *
 * <p>They are counted into the composition's one registry, to which this door adds the Prometheus registry it serves
 * at {@code /metrics}: so the scrape shows the application's own meters too (a worker's, the queue's), made before
 * or after this door.
 */
final class ApiMetrics implements AutoCloseable {

    private final CompositeMeterRegistry registry;
    private final PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

    @Inject
    ApiMetrics(CompositeMeterRegistry registry) {
        this.registry = registry;
        registry.add(prometheus);
        new JvmMemoryMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
    }

    void execution(Execution e, String via) {
        Timer.builder("codeagent.executions")
                .description("Executions run through the API, by outcome, with their wall time")
                .tag("outcome", e.outcome().name())
                .tag("via", via)
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(1))
                .maximumExpectedValue(Duration.ofMinutes(2))
                .register(registry)
                .record(e.wallTime());
    }

    void runFinished(RunStatus status) {
        Counter.builder("codeagent.runs.finished")
                .description("Agent runs that reached a final status")
                .tag("status", status.name())
                .register(registry)
                .increment();
    }

    void runStarted() {
        Counter.builder("codeagent.runs.started").description("Agent runs accepted").register(registry).increment();
    }

    void rejected(String reason) {
        Counter.builder("codeagent.http.rejected")
                .description("Requests refused before any work: unauthorized, forbidden, rate_limited, overloaded, too_large, invalid,"
                        + " cross_site, unknown_host")
                .tag("reason", reason)
                .register(registry)
                .increment();
    }

    void request(String method, String route, int status, long nanos) {
        Timer.builder("codeagent.http.requests")
                .description("HTTP requests by route and status")
                .tag("method", method)
                .tag("route", route)
                .tag("status", Integer.toString(status))
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(1))
                .maximumExpectedValue(Duration.ofMinutes(2))
                .register(registry)
                .record(Duration.ofNanos(nanos));
    }

    void gauge(String name, String description, Supplier<Number> value) {
        Gauge.builder(name, value).description(description).register(registry);
    }

    String scrape() {
        return prometheus.scrape();
    }

    /** Stops exporting: the composition's registry lives on with the composition. */
    @Override
    public void close() {
        registry.remove(prometheus);
        prometheus.close();
    }
}
