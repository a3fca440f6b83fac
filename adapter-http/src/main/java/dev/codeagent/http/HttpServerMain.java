package dev.codeagent.http;

import dev.codeagent.application.CodeAgent;
import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.config.ConfigException;
import dev.codeagent.application.config.ConfigLoader;
import dev.codeagent.domain.execution.SandboxUnavailableException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code codeagent serve}: starts the HTTP API and runs until SIGTERM/SIGINT, then shuts down
 * gracefully.
 *
 * <pre>
 * serve [--config FILE] [--host ADDRESS] [--port N] [--set key=value]...
 * </pre>
 *
 * The config comes from {@code --config} (else {@code $CODEAGENT_CONFIG}, else
 * {@code ~/.codeagent/config.yaml}), then {@code CODEAGENT_*} variables, then the flags. Exit status:
 * 0 after a clean stop, 2 for a usage or config error, 1 when the server cannot start.
 */
public final class HttpServerMain {

    private static final Logger log = LoggerFactory.getLogger(HttpServerMain.class);
    static final String USAGE = "usage: codeagent serve [--config FILE] [--host ADDRESS] [--port N] [--set key=value]...";

    private HttpServerMain() {
    }

    public static void main(String[] args) {
        int status = run(args, System.getenv());
        if (status != 0) {
            System.exit(status);
        }
    }

    static int run(String[] args, Map<String, String> env) {
        Arguments parsed;
        try {
            parsed = Arguments.parse(List.of(args));
        } catch (IllegalArgumentException e) {
            log.error("{}\n{}", e.getMessage(), USAGE);
            return 2;
        }
        if (parsed.help()) {
            log.info(USAGE);
            return 0;
        }
        CodeAgent agent;
        try {
            // serving others: strict isolation unless the config says best-effort (see ConfigLoader.SERVICE_DEFAULTS)
            CodeAgentConfig config = new ConfigLoader().load(parsed.configFile(), env, parsed.overrides(),
                    ConfigLoader.SERVICE_DEFAULTS);
            agent = CodeAgent.builder(config).build();
        } catch (ConfigException e) {
            log.error("{}", e.getMessage());
            return 2;
        } catch (SandboxUnavailableException e) {
            log.error("the sandbox cannot run here: {}", e.getMessage());
            return 1;
        }
        ApiServer server;
        try {
            server = ApiServer.start(agent);
        } catch (ConfigException e) {
            log.error("{}", e.getMessage());
            return 2;
        } catch (SandboxUnavailableException e) {
            // strict isolation (the server's default) on a host that lacks a guarantee: the message names each one
            log.error("the sandbox cannot run here: {}", e.getMessage());
            return 1;
        } catch (RuntimeException e) {
            log.error("the server could not start: {}", e.toString());
            return 1;
        }
        if (!agent.sandbox().isolation().missing().isEmpty()) {
            // best-effort was asked for explicitly (the server is strict by default): say once what every run lacks
            log.warn("serving with sandbox.isolation: best-effort: every run lacks {}",
                    String.join(", ", agent.sandbox().isolation().sortedMissing()));
        }
        Runtime.getRuntime().addShutdownHook(new Thread(server::close, "shutdown"));
        try {
            server.awaitStop();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            server.close();
        }
        return 0;
    }

    /** The parsed command line. */
    record Arguments(Optional<Path> configFile, Map<String, String> overrides, boolean help) {

        static Arguments parse(List<String> args) {
            Optional<Path> config = Optional.empty();
            Map<String, String> overrides = new LinkedHashMap<>();
            boolean help = false;
            for (int i = 0; i < args.size(); i++) {
                String a = args.get(i);
                if (i == 0 && a.equals("serve")) {
                    continue;
                }
                String name = a;
                String value = null;
                int eq = a.indexOf('=');
                if (a.startsWith("--") && eq > 0 && !a.startsWith("--set")) {
                    name = a.substring(0, eq);
                    value = a.substring(eq + 1);
                }
                switch (name) {
                    case "-h":
                    case "--help":
                        help = true;
                        break;
                    case "--config":
                        config = Optional.of(Path.of(value != null ? value : next(args, ++i, a)));
                        break;
                    case "--host":
                        overrides.put("http.host", value != null ? value : next(args, ++i, a));
                        break;
                    case "--port":
                        String port = value != null ? value : next(args, ++i, a);
                        if (!port.matches("\\d{1,5}")) {
                            throw new IllegalArgumentException("--port: '" + port + "' is not a port number");
                        }
                        overrides.put("http.port", port);
                        break;
                    case "--set":
                        String kv = next(args, ++i, a);
                        int at = kv.indexOf('=');
                        if (at <= 0) {
                            throw new IllegalArgumentException("--set: expected key=value, got '" + kv + "'");
                        }
                        overrides.put(kv.substring(0, at), kv.substring(at + 1));
                        break;
                    default:
                        throw new IllegalArgumentException("unknown argument '" + a + "'");
                }
            }
            return new Arguments(config, overrides, help);
        }

        private static String next(List<String> args, int i, String flag) {
            if (i >= args.size()) {
                throw new IllegalArgumentException(flag + " needs a value");
            }
            return args.get(i);
        }
    }
}
