package dev.codeagent.sandbox.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.async.ResultCallback;
import com.github.dockerjava.api.command.CreateContainerCmd;
import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.command.InspectImageResponse;
import com.github.dockerjava.api.exception.BadRequestException;
import com.github.dockerjava.api.exception.ConflictException;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.exception.NotModifiedException;
import com.github.dockerjava.api.model.Container;
import com.github.dockerjava.api.model.Frame;
import com.github.dockerjava.api.model.Info;
import com.github.dockerjava.api.model.Statistics;
import com.github.dockerjava.core.InvocationBuilder;
import com.github.dockerjava.core.DefaultDockerClientConfig;
import com.github.dockerjava.core.DockerClientConfig;
import com.github.dockerjava.core.DockerClientImpl;
import com.github.dockerjava.httpclient5.ApacheDockerHttpClient;
import com.github.dockerjava.transport.DockerHttpClient;
import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import java.io.ByteArrayInputStream;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine as the sandbox needs it: a handful of calls, each bounded in time and guarded by one
 * circuit breaker, failing with {@link EngineFailure} rather than docker-java's assorted runtime
 * exceptions.
 *
 * <p>Two clients share the engine: a control client whose every call has a response timeout, and a
 * stream client without one for attach and wait, whose streams last as long as the program and are
 * bounded by the sandbox's own watchdog instead. "Not found" and "conflict" answers are the normal
 * outcome of races (removing what is already gone) and do not count against the engine.
 */
final class DockerEngine implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(DockerEngine.class);

    private final String host;
    private final DockerHttpClient controlHttp;
    private final DockerHttpClient streamHttp;
    private final DockerClient control;
    private final DockerClient stream;
    private final CircuitBreaker breaker;

    DockerEngine(String configuredHost, Duration callTimeout, Duration openStateWait) {
        DefaultDockerClientConfig.Builder builder = DefaultDockerClientConfig.createDefaultConfigBuilder();
        if (configuredHost != null && !configuredHost.isBlank()) {
            builder.withDockerHost(configuredHost.trim());
        }
        DockerClientConfig config;
        try {
            config = builder.build();
        } catch (IllegalArgumentException | IllegalStateException e) {
            throw new EngineFailure("the Docker host setting is not usable: " + e.getMessage(), e);
        }
        this.host = config.getDockerHost().toString();
        this.controlHttp = new ApacheDockerHttpClient.Builder()
                .dockerHost(config.getDockerHost())
                .sslConfig(config.getSSLConfig())
                .maxConnections(64)
                .connectionTimeout(Duration.ofSeconds(3))
                .responseTimeout(callTimeout)
                .build();
        this.streamHttp = new ApacheDockerHttpClient.Builder()
                .dockerHost(config.getDockerHost())
                .sslConfig(config.getSSLConfig())
                .maxConnections(256)
                .connectionTimeout(Duration.ofSeconds(3))
                .build();
        this.control = DockerClientImpl.getInstance(config, controlHttp);
        this.stream = DockerClientImpl.getInstance(config, streamHttp);
        this.breaker = CircuitBreaker.of("docker-engine", CircuitBreakerConfig.custom()
                .slidingWindowType(CircuitBreakerConfig.SlidingWindowType.COUNT_BASED)
                .slidingWindowSize(6)
                .minimumNumberOfCalls(3)
                .failureRateThreshold(50)
                .waitDurationInOpenState(openStateWait)
                .permittedNumberOfCallsInHalfOpenState(1)
                .ignoreExceptions(NotFoundException.class, ConflictException.class, NotModifiedException.class,
                        BadRequestException.class)
                .build());
        breaker.getEventPublisher().onStateTransition(e -> log.info("docker engine circuit: {}", e.getStateTransition()));
    }

    /** The engine's address, as given or found ({@code unix:///var/run/docker.sock}). */
    String host() {
        return host;
    }

    boolean circuitOpen() {
        return breaker.getState() == CircuitBreaker.State.OPEN;
    }

    void ping() {
        call("ping", () -> control.pingCmd().exec());
    }

    Info info() {
        return call("info", () -> control.infoCmd().exec());
    }

    /** The image's labels, or empty when the engine does not have the image. */
    Optional<Map<String, String>> imageLabels(String image) {
        try {
            InspectImageResponse r = call("inspect image", () -> control.inspectImageCmd(image).exec());
            Map<String, String> labels = r.getConfig() == null ? null : r.getConfig().getLabels();
            return Optional.of(labels == null ? Map.of() : labels);
        } catch (NotFoundException e) {
            return Optional.empty();
        }
    }

    String create(DockerContainers.Spec spec) {
        return call("create container", () -> {
            CreateContainerCmd cmd = control.createContainerCmd(spec.image());
            spec.applyTo(cmd);
            return cmd.exec().getId();
        });
    }

    void start(String id) {
        call("start container", () -> control.startContainerCmd(id).exec());
    }

    /** Force-removes (kills first) a container; true when it is gone, including when it already was. */
    boolean remove(String id) {
        try {
            call("remove container", () -> control.removeContainerCmd(id).withForce(true).withRemoveVolumes(true).exec());
            return true;
        } catch (NotFoundException e) {
            return true;
        } catch (ConflictException e) {
            // "removal already in progress": the engine finishes it
            return true;
        }
    }

    InspectContainerResponse inspect(String id) {
        return call("inspect container", () -> control.inspectContainerCmd(id).exec());
    }

    /**
     * Whether the engine announced an OOM kill in the container since {@code sinceEpochSeconds}. The engine
     * sets a container's OOMKilled only for an OOM event that comes before the container's end; under gVisor the
     * event was seen to come after it (die, then oom), and then only the event log tells.
     */
    boolean oomEventSince(String id, long sinceEpochSeconds) {
        return call("read container events", () -> {
            java.util.concurrent.atomic.AtomicBoolean seen = new java.util.concurrent.atomic.AtomicBoolean();
            ResultCallback.Adapter<com.github.dockerjava.api.model.Event> cb = new ResultCallback.Adapter<>() {
                @Override
                public void onNext(com.github.dockerjava.api.model.Event e) {
                    seen.set(true);
                }
            };
            // with an until the engine sends what it has and ends the stream
            control.eventsCmd().withContainerFilter(id).withEventFilter("oom")
                    .withSince(Long.toString(sinceEpochSeconds))
                    .withUntil(Long.toString(java.time.Instant.now().getEpochSecond() + 1)).exec(cb);
            try {
                cb.awaitCompletion(5, java.util.concurrent.TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while reading the engine's events", e);
            } finally {
                try {
                    cb.close();
                } catch (java.io.IOException ignored) {
                    // the stream is over either way
                }
            }
            return seen.get();
        });
    }

    /** The container's CPU time as the engine's stats report it (one sample, no stream). */
    long cpuUsageNanos(String id) {
        return call("read container stats", () -> {
            try (InvocationBuilder.AsyncResultCallback<Statistics> cb = new InvocationBuilder.AsyncResultCallback<>()) {
                control.statsCmd(id).withNoStream(true).exec(cb);
                Statistics s = cb.awaitResult();
                Long total = s == null || s.getCpuStats() == null || s.getCpuStats().getCpuUsage() == null
                        ? null : s.getCpuStats().getCpuUsage().getTotalUsage();
                if (total == null) {
                    throw new IllegalStateException("the engine's stats have no CPU usage");
                }
                return total;
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
    }

    List<Container> listByLabels(Map<String, String> labels) {
        return call("list containers", () -> control.listContainersCmd().withShowAll(true).withLabelFilter(labels).exec());
    }

    /** Attaches to stdout/stderr, writes {@code stdin} to the container and streams frames to the callback. */
    <C extends ResultCallback<Frame>> C attach(String id, byte[] stdin, C callback) {
        return attach(id, new ByteArrayInputStream(stdin), callback);
    }

    /** Creates a session's container (see {@link DockerContainers.Spec#applySessionTo}). */
    String createSession(DockerContainers.Spec spec, List<String> command) {
        return call("create container", () -> {
            CreateContainerCmd cmd = control.createContainerCmd(spec.image());
            spec.applySessionTo(cmd, command);
            return cmd.exec().getId();
        });
    }

    /** Attaches to stdout/stderr and streams {@code stdin} to the container for as long as it gives bytes. */
    <C extends ResultCallback<Frame>> C attach(String id, java.io.InputStream stdin, C callback) {
        return call("attach", () -> stream.attachContainerCmd(id)
                .withStdOut(true)
                .withStdErr(true)
                .withFollowStream(true)
                .withStdIn(stdin)
                .exec(callback));
    }

    /** Records a failure seen outside a guarded call (a stream that broke), so the breaker hears of it. */
    void recordStreamFailure(Throwable t) {
        breaker.onError(0, java.util.concurrent.TimeUnit.NANOSECONDS, t);
    }

    private <T> T call(String what, Supplier<T> action) {
        try {
            return breaker.executeSupplier(action);
        } catch (CallNotPermittedException e) {
            throw new EngineFailure("the Docker engine at " + host + " is failing; not calling it for now (" + what + ")", e);
        } catch (NotFoundException | ConflictException | NotModifiedException e) {
            throw e;
        } catch (BadRequestException e) {
            throw new EngineFailure("the Docker engine refused to " + what + ": " + oneLine(e.getMessage()), e);
        } catch (RuntimeException e) {
            throw new EngineFailure("the Docker engine at " + host + " failed to " + what + ": " + describe(e), e);
        }
    }

    static String describe(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String msg = root.getMessage();
        return root.getClass().getSimpleName() + (msg == null ? "" : ": " + oneLine(msg));
    }

    static String oneLine(String s) {
        if (s == null) {
            return "";
        }
        String t = s.replaceAll("\\s+", " ").trim();
        return t.length() > 300 ? t.substring(0, 300) + "…" : t;
    }

    @Override
    public void close() {
        for (AutoCloseable c : new AutoCloseable[] {control, stream, controlHttp, streamHttp}) {
            try {
                c.close();
            } catch (Exception e) {
                // AutoCloseable says Exception; a client that fails to close holds nothing we still need
                log.debug("closing a docker client: {}", e.toString());
            }
        }
    }
}
