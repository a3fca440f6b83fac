package dev.codeagent.http;

import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.config.ConfigException;
import dev.codeagent.application.config.ConfigLoader;
import dev.codeagent.application.inject.Composition;
import dev.codeagent.application.inject.EmbeddingModule;
import dev.codeagent.application.spi.Adapters;
import dev.codeagent.domain.execution.SandboxUnavailableException;
import java.io.PrintStream;
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
    static final String USAGE = "Usage: codeagent serve [--config FILE] [--host ADDRESS] [--port N] [--set KEY=VALUE]...";
    static final String HELP = String.join("\n",
            "Serves the HTTP API (docs/http-api.md) until SIGTERM or Ctrl-C, then stops gracefully.",
            "      --config FILE     Config file (YAML or JSON); default $CODEAGENT_CONFIG, else ~/.codeagent/config.yaml.",
            "      --host ADDRESS    Address to listen on (config http.host).",
            "      --port N          Port to listen on (config http.port).",
            "      --set KEY=VALUE   Set any config key by its dotted path (see 'codeagent config --keys').",
            "  -h, --help            Show this help and exit.",
            "Exit status: 0 after a clean stop, 1 the server could not start, 2 bad usage or config.");

    private HttpServerMain() {
    }

    public static void main(String[] args) {
        int status = run(args, System.getenv(), System.out, System.err);
        if (status != 0) {
            System.exit(status);
        }
    }

    /**
     * Usage, help and the errors before the server runs are answers to the user typing the command, so they read
     * like every other command's ("codeagent: … (see 'codeagent serve --help')" on stderr, help on stdout), not as
     * timestamped log lines; once it serves, it logs.
     */
    static int run(String[] args, Map<String, String> env, PrintStream out, PrintStream err) {
        Arguments parsed;
        try {
            parsed = Arguments.parse(List.of(args));
        } catch (IllegalArgumentException e) {
            err.println("codeagent: " + e.getMessage() + " (see 'codeagent serve --help')");
            return 2;
        }
        if (parsed.help()) {
            out.println(USAGE);
            out.println(HELP);
            return 0;
        }
        Composition composition;
        try {
            // serving others: strict isolation unless the config says best-effort (see ConfigLoader.SERVICE_DEFAULTS)
            CodeAgentConfig config = new ConfigLoader().load(parsed.configFile(), env, parsed.overrides(),
                    ConfigLoader.SERVICE_DEFAULTS);
            // the root: the server and every part of it come from here (HttpModule, found with the other adapters)
            composition = Composition.create(config, Adapters.discover().modules(), EmbeddingModule.Embedding.none());
        } catch (ConfigException e) {
            err.println("codeagent: " + e.getMessage());
            return 2;
        } catch (SandboxUnavailableException e) {
            err.println("codeagent: the sandbox cannot run here: " + e.getMessage());
            return 1;
        }
        ApiServer server;
        try {
            server = ApiServer.start(composition);
        } catch (ConfigException e) {
            err.println("codeagent: " + e.getMessage());
            return 2;
        } catch (SandboxUnavailableException e) {
            // strict isolation (the server's default) on a host that lacks a guarantee: the message names each one
            log.error("the sandbox cannot run here: {}", e.getMessage());
            return 1;
        } catch (RuntimeException e) {
            log.debug("the server could not start", e);
            err.println("codeagent: the server could not start: " + e);
            return 1;
        }
        if (!server.isolationMissing().isEmpty()) {
            // best-effort was asked for explicitly (the server is strict by default): say once what every run lacks
            log.warn("serving with sandbox.isolation: best-effort: every run lacks {}",
                    String.join(", ", server.isolationMissing()));
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
                        throw new IllegalArgumentException(a.startsWith("-") ? "unknown option '" + a + "'" + nearest(a)
                                : "unexpected argument '" + a + "'");
                }
            }
            return new Arguments(config, overrides, help);
        }

        private static String nearest(String typed) {
            String name = typed.contains("=") ? typed.substring(0, typed.indexOf('=')) : typed;
            for (String known : List.of("--config", "--host", "--port", "--set", "--help")) {
                if (known.startsWith(name) && name.length() > 3 || name.startsWith(known)
                        || name.length() == known.length() && differsInOne(name, known)) {
                    return "; did you mean " + known + "?";
                }
            }
            return "";
        }

        /** One letter wrong, or two neighbours swapped ("--prot"): a slip of the fingers. */
        private static boolean differsInOne(String a, String b) {
            int first = -1;
            int d = 0;
            for (int i = 0; i < a.length(); i++) {
                if (a.charAt(i) != b.charAt(i)) {
                    first = first < 0 ? i : first;
                    d++;
                }
            }
            boolean swapped = d == 2 && first + 1 < a.length() && a.charAt(first) == b.charAt(first + 1)
                    && a.charAt(first + 1) == b.charAt(first);
            return d == 1 || swapped;
        }

        private static String next(List<String> args, int i, String flag) {
            if (i >= args.size()) {
                throw new IllegalArgumentException(flag + " needs a value");
            }
            return args.get(i);
        }
    }
}
