package dev.codeagent.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A {@code codeagent} command started by the real launcher as a user runs it against a shared store: the jar this
 * build packaged ({@code CODEAGENT_SKIP_BUILD=1}), a JVM of its own ({@code CODEAGENT_NO_DAEMON=1}: its pid is the
 * JVM, for signals), the given config. For workers, where their {@code /metrics} answer.
 */
record LaunchedWorker(Process process, URI metrics) {

    static final Path ROOT = Path.of(System.getenv().getOrDefault("CODEAGENT_REPO_ROOT", "..")).toAbsolutePath().normalize();

    /** The launcher with {@code args}, in {@code dir}, its stderr to {@code dir/name.err}. */
    static Process launch(Path dir, Path config, String name, String... args) throws IOException {
        return launch(List.of(), dir, config, name, args);
    }

    /** The same, started through {@code prefix} (e.g. {@code ip netns exec NAME}). */
    static Process launch(List<String> prefix, Path dir, Path config, String name, String... args) throws IOException {
        List<String> command = new java.util.ArrayList<>(prefix);
        command.add(ROOT.resolve("codeagent").toString());
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile());
        pb.environment().put("CODEAGENT_SKIP_BUILD", "1");
        pb.environment().put("CODEAGENT_NO_DAEMON", "1");
        pb.environment().put("CODEAGENT_CONFIG", config.toString());
        pb.redirectError(dir.resolve(name + ".err").toFile()).redirectOutput(dir.resolve(name + ".out").toFile());
        // no input, as from a service manager: a pipe the test never closes would keep 'exec --queue' (which reads its
        // whole stdin before queueing the program) waiting for an end of input that never comes
        pb.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        return pb.start();
    }

    /** {@code codeagent worker --metrics-port 0}, once it says where its metrics are. */
    static LaunchedWorker start(Path dir, Path config, String name) throws Exception {
        return start(List.of(), "127.0.0.1", dir, config, name);
    }

    /** A worker started through {@code prefix}, its metrics on {@code metricsHost}. */
    static LaunchedWorker start(List<String> prefix, String metricsHost, Path dir, Path config, String name) throws Exception {
        Process p = launch(prefix, dir, config, name, "worker", "--metrics-port", "0", "--metrics-host", metricsHost);
        Path err = dir.resolve(name + ".err");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        Matcher at = Pattern.compile("metrics at (http://" + Pattern.quote(metricsHost) + ":\\d+/metrics)").matcher("");
        while (System.nanoTime() < deadline && p.isAlive()) {
            at = at.reset(Files.readString(err));
            if (at.find()) {
                return new LaunchedWorker(p, URI.create(at.group(1)));
            }
            Thread.sleep(100);
        }
        p.destroyForcibly();
        throw new AssertionError("worker " + name + " did not start:\n" + Files.readString(err));
    }

    /** One sample of the worker's metrics. */
    double value(String name) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(metrics).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        Matcher m = Pattern.compile("(?m)^" + name + " (\\S+)$").matcher(r.body());
        assertThat(m.find()).as(name + " in\n" + r.body()).isTrue();
        return Double.parseDouble(m.group(1));
    }

    /** Waits up to 60 s for a metric to reach {@code at}. */
    void awaitAtLeast(String name, double at) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (value(name) < at) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(name + " did not reach " + at + " in 60 s");
            }
            Thread.sleep(100);
        }
    }

    /** SIGTERM, as a service manager stops it; killed if it does not go within 30 s. */
    void stop() throws Exception {
        if (process.isAlive()) {
            new ProcessBuilder("kill", "-TERM", Long.toString(process.pid())).start().waitFor(10, TimeUnit.SECONDS);
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
    }
}
