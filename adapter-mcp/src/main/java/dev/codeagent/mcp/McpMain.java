package dev.codeagent.mcp;

import dev.codeagent.application.CodeAgent;
import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.config.ConfigException;
import dev.codeagent.application.config.ConfigLoader;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.BufferedInputStream;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;

/**
 * {@code codeagent mcp}: the Model Context Protocol server over stdio, the form desktop agents start.
 *
 * <pre>
 * codeagent mcp [--config FILE] [--sandbox KIND] [--set KEY=VALUE]...
 * </pre>
 *
 * Stdout carries the protocol and nothing else (codeagent's log goes to stderr); the server ends when stdin closes,
 * and with it every kernel it opened. Exit status: 0 the client went away, 2 bad usage or config.
 */
public final class McpMain {

    static final String USAGE = String.join("\n",
            "usage: codeagent mcp [--config FILE] [--sandbox KIND] [--set KEY=VALUE]...",
            "Serves codeagent's tools (execute_code, list_languages, run_cell, read_file, restart_kernel, solve_task) over MCP on",
            "stdin/stdout, for an agent that starts it (see docs/mcp.md). Ends when stdin closes.");

    /** The largest message taken over stdio: a megabyte of code, JSON-escaped, with room for the files beside it. */
    static final int MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

    private McpMain() {
    }

    public static void main(String[] args) {
        // the protocol's own channel: written only by the transport, never by a stray println
        InputStream in = new FileInputStream(FileDescriptor.in);
        OutputStream out = new FileOutputStream(FileDescriptor.out);
        int status = run(List.of(args), System.getenv(), in, out, System.err);
        System.exit(status);
    }

    static int run(List<String> args, Map<String, String> env, InputStream in, OutputStream out, PrintStream err) {
        Arguments a;
        try {
            a = Arguments.parse(args);
        } catch (IllegalArgumentException e) {
            err.println("codeagent mcp: " + e.getMessage() + " (see 'codeagent mcp --help')");
            return 2;
        }
        if (a.help()) {
            PrintStream usage = new PrintStream(out, true, StandardCharsets.UTF_8);
            usage.println(USAGE);
            return 0;
        }
        CodeAgentConfig config;
        try {
            // a model writes the code these tools run: strict isolation unless the config says best-effort
            config = new ConfigLoader().load(a.configFile(), env, a.overrides(), ConfigLoader.SERVICE_DEFAULTS);
            McpConfig.from(config);
        } catch (ConfigException e) {
            err.println("codeagent mcp: " + e.getMessage());
            return 2;
        }
        try (CodeAgent agent = CodeAgent.builder(config).build()) {
            serve(agent, in, out);
        }
        return 0;
    }

    /** Serves until {@code in} ends. */
    static void serve(CodeAgent agent, InputStream in, OutputStream out) {
        McpConfig mcp = McpConfig.from(agent.config());
        Calls calls = new Calls(mcp.maxCallsPerSession());
        CountDownLatch ended = new CountDownLatch(1);
        InputStream wire = new StdioWire(new BufferedInputStream(in), out, calls, MAX_MESSAGE_BYTES, ended::countDown);
        try (McpTools tools = new McpTools(agent, calls)) {
            McpSyncServer server = server(new StdioServerTransportProvider(McpJsonDefaults.getMapper(), wire, out,
                    MAX_MESSAGE_BYTES + 1024), tools);
            try {
                ended.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            // the one stdio session is over: its kernel goes now (closing the tools), not at its idle timeout
            server.closeGracefully();
        }
    }

    /** The server over a single-session transport (stdio). */
    static McpSyncServer server(io.modelcontextprotocol.spec.McpServerTransportProvider transport, McpTools tools) {
        return configure(McpServer.sync(transport), tools).build();
    }

    /** The same server over a transport of many sessions (Streamable HTTP). */
    static McpSyncServer server(io.modelcontextprotocol.spec.McpStreamableServerTransportProvider transport, McpTools tools) {
        return configure(McpServer.sync(transport), tools).build();
    }

    private static <S extends McpServer.SyncSpecification<S>> S configure(S spec, McpTools tools) {
        String version = McpMain.class.getPackage().getImplementationVersion();
        spec.serverInfo(new McpSchema.Implementation("codeagent", "codeagent", version == null ? "dev" : version));
        spec.instructions("codeagent runs code in a hardened sandbox without network: execute_code for one program in any"
                + " language of list_languages, run_cell for Python with state kept across calls (plots come back as"
                + " images), solve_task to have a program written and tested.");
        spec.capabilities(McpSchema.ServerCapabilities.builder().tools(false).resources(false, false).build());
        // a tool call may run as long as mcp.maxTimeout times its attempts: the SDK's own timeout is not the limit
        spec.requestTimeout(Duration.ofHours(2));
        spec.tools(tools.tools());
        spec.resourceTemplates(tools.resources());
        return spec;
    }

    /** The parsed command line. */
    record Arguments(boolean help, Optional<Path> configFile, Map<String, String> overrides) {

        static Arguments parse(List<String> args) {
            List<String> rest = new ArrayList<>(args);
            if (!rest.isEmpty() && rest.get(0).equals("mcp")) {
                rest.remove(0);
            }
            Optional<Path> config = Optional.empty();
            Map<String, String> overrides = new LinkedHashMap<>();
            for (int i = 0; i < rest.size(); i++) {
                String arg = rest.get(i);
                String flag = arg;
                String value = null;
                int eq = arg.indexOf('=');
                if (arg.startsWith("--") && eq > 0 && !arg.startsWith("--set")) {
                    flag = arg.substring(0, eq);
                    value = arg.substring(eq + 1);
                }
                switch (flag) {
                    case "-h", "--help", "help" -> {
                        return new Arguments(true, config, overrides);
                    }
                    case "--config" -> config = Optional.of(Path.of(value != null ? value : next(rest, ++i, arg)).toAbsolutePath());
                    case "--sandbox" -> overrides.put("sandbox.kind", value != null ? value : next(rest, ++i, arg));
                    case "--set" -> {
                        String kv = next(rest, ++i, arg);
                        int at = kv.indexOf('=');
                        if (at <= 0) {
                            throw new IllegalArgumentException("--set: expected KEY=VALUE, got '" + kv + "'");
                        }
                        overrides.put(kv.substring(0, at), kv.substring(at + 1));
                    }
                    default -> throw new IllegalArgumentException("unknown argument '" + arg + "'");
                }
            }
            return new Arguments(false, config, java.util.Collections.unmodifiableMap(overrides));
        }

        private static String next(List<String> args, int i, String flag) {
            if (i >= args.size()) {
                throw new IllegalArgumentException(flag + " needs a value");
            }
            return args.get(i);
        }
    }
}
