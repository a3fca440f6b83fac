package dev.codeagent.jupyter;

import dev.codeagent.application.CodeAgent;
import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.config.ConfigException;
import dev.codeagent.application.config.ConfigLoader;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.dflib.jjava.jupyter.channels.JupyterConnection;
import org.dflib.jjava.jupyter.kernel.KernelConnectionProperties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code codeagent jupyter}: installs the kernelspec, and is the kernel process Jupyter starts.
 *
 * <pre>
 * codeagent jupyter install [--user | --prefix DIR] [--name NAME] [--config FILE] [--sandbox KIND] [--set KEY=VALUE]...
 * codeagent jupyter kernel [--config FILE] [--sandbox KIND] [--set KEY=VALUE]... CONNECTION_FILE
 * </pre>
 *
 * {@code install} records {@code --config}, {@code --sandbox} and {@code --set} in the kernelspec's command, so the
 * kernel Jupyter starts runs with them. Exit status: 0 done, 1 the kernel failed, 2 bad usage or config.
 */
public final class JupyterMain {

    private static final Logger log = LoggerFactory.getLogger(JupyterMain.class);

    static final String USAGE = String.join("\n",
            "usage: codeagent jupyter install [--user | --prefix DIR] [--name NAME] [--config FILE] [--sandbox KIND] [--set KEY=VALUE]...",
            "       codeagent jupyter kernel [--config FILE] [--sandbox KIND] [--set KEY=VALUE]... CONNECTION_FILE",
            "install writes the 'codeagent' kernelspec (default: for this user, in Jupyter's data directory);",
            "kernel is what Jupyter starts from it.");

    private JupyterMain() {
    }

    public static void main(String[] args) {
        int status = run(List.of(args), System.getenv(), System.out, System.err);
        System.exit(status);
    }

    static int run(List<String> args, Map<String, String> env, PrintStream out, PrintStream err) {
        Arguments a;
        try {
            a = Arguments.parse(args);
        } catch (IllegalArgumentException e) {
            // one line and where to look, as every other command answers a mistyped command line
            err.println("codeagent jupyter: " + e.getMessage() + " (see 'codeagent jupyter --help')");
            return 2;
        }
        if (a.help()) {
            out.println(USAGE);
            return 0;
        }
        Function<Map<String, String>, CodeAgentConfig> configs = extra -> {
            Map<String, String> all = new LinkedHashMap<>(a.overrides());
            all.putAll(extra);
            // a kernel runs cells for whoever uses the notebook: strict isolation unless the config says best-effort
            return new ConfigLoader().load(a.configFile(), env, all, ConfigLoader.SERVICE_DEFAULTS);
        };
        try {
            configs.apply(Map.of());
        } catch (ConfigException e) {
            err.println("codeagent jupyter: " + e.getMessage());
            return 2;
        }
        return a.install() ? install(a, env, out, err) : kernel(a.connectionFile(), configs, env, err);
    }

    private static int install(Arguments a, Map<String, String> env, PrintStream out, PrintStream err) {
        java.util.Set<String> secrets = new ConfigLoader().secretKeys();
        for (String key : a.overrides().keySet()) {
            if (secrets.contains(key)) {
                // kernel.json is a plain file other users may read; the kernel reads secrets from its environment
                err.println("codeagent jupyter: --set " + key + " would write a secret into kernel.json; give it in the"
                        + " environment Jupyter starts with (" + ConfigLoader.envName(key) + ") or in a config file");
                return 2;
            }
        }
        List<String> command = new ArrayList<>(launcher());
        command.addAll(List.of("jupyter", "kernel"));
        a.configFile().ifPresent(f -> command.addAll(List.of("--config", f.toAbsolutePath().toString())));
        a.overrides().forEach((k, v) -> command.addAll(List.of("--set", k + "=" + v)));
        Path dataDir = a.prefix().map(KernelSpec::prefixDataDir).orElseGet(() -> KernelSpec.userDataDir(env));
        try {
            Path dir = new KernelSpec(a.name(), command).installInto(dataDir);
            out.println("codeagent: installed the '" + a.name() + "' kernel in " + dir);
            if (a.prefix().isPresent()) {
                out.println("codeagent: Jupyter finds it when " + dataDir + " is on JUPYTER_PATH or is its prefix's data directory");
            }
            return 0;
        } catch (IllegalArgumentException e) {
            err.println("codeagent jupyter: --name: " + e.getMessage());
            return 2;
        } catch (IOException e) {
            err.println("codeagent jupyter: cannot write the kernelspec under " + dataDir + ": " + e.getMessage());
            return 1;
        }
    }

    /**
     * How to start codeagent again: the {@code ./codeagent} launcher when it started this JVM (it says so in
     * {@code codeagent.launcher}), else this JVM's java with this class path.
     */
    static List<String> launcher() {
        String script = System.getProperty("codeagent.launcher");
        if (script != null && !script.isBlank()) {
            return List.of(Path.of(script).toAbsolutePath().toString());
        }
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String classPath = System.getProperty("jdk.module.path") == null ? System.getProperty("java.class.path") : null;
        if (classPath == null || classPath.isBlank()) {
            throw new IllegalStateException("cannot tell how this JVM was started: set -Dcodeagent.launcher");
        }
        return List.of(java, "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto", "-cp", classPath,
                JupyterMain.class.getName());
    }

    private static int kernel(Path connectionFile, Function<Map<String, String>, CodeAgentConfig> configs,
            Map<String, String> env, PrintStream err) {
        KernelConnectionProperties connection;
        try {
            connection = KernelConnectionProperties.parse(Files.readString(connectionFile, StandardCharsets.UTF_8));
        } catch (IOException | RuntimeException e) {
            err.println("codeagent jupyter: cannot read the connection file " + connectionFile + ": " + e.getMessage());
            return 2;
        }
        // composed at this entry point, the kernel's root: the kernel asks it for an agent when a cell first needs one
        CodeAgentKernel kernel = new CodeAgentKernel(configs, config -> CodeAgent.builder(config).build());
        JupyterConnection wire;
        try {
            wire = new GuardedConnection(connection, kernel::executionCount);
        } catch (java.security.GeneralSecurityException e) {
            err.println("codeagent jupyter: the connection file's signature scheme is not usable: " + e.getMessage());
            return 2;
        }
        kernel.becomeHandlerForConnection(wire);
        // the session (a sandbox and an IPython kernel in it) takes longest: it starts before the sockets are bound
        kernel.start();
        try {
            wire.connect();
        } catch (RuntimeException e) {
            err.println("codeagent jupyter: cannot bind the kernel's sockets: " + e.getMessage());
            kernel.onShutdown(false);
            return 1;
        }
        // a kernel killed by its manager (after a shutdown that took too long) still closes its sandboxes
        Runtime.getRuntime().addShutdownHook(new Thread(() -> kernel.onShutdown(false), "codeagent-kernel-stop"));
        watchParent(env, wire);
        wire.waitUntilClose();
        log.debug("the kernel's connection closed");
        return 0;
    }

    /** Like ipykernel: when the process that started the kernel is gone, nobody can talk to it any more. */
    private static void watchParent(Map<String, String> env, JupyterConnection wire) {
        String parent = env.get("JPY_PARENT_PID");
        if (parent == null || !parent.matches("\\d{1,10}")) {
            return;
        }
        Optional<ProcessHandle> handle = ProcessHandle.of(Long.parseLong(parent));
        if (handle.isEmpty()) {
            return;
        }
        Thread watcher = new Thread(() -> {
            try {
                while (handle.get().isAlive()) {
                    TimeUnit.SECONDS.sleep(2);
                }
                log.warn("the process that started this kernel ({}) is gone; stopping", parent);
                wire.close();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "codeagent-parent-watch");
        watcher.setDaemon(true);
        watcher.start();
    }

    /** The parsed command line. */
    record Arguments(boolean install, boolean help, Optional<Path> prefix, String name, Optional<Path> configFile,
            Map<String, String> overrides, Path connectionFile) {

        static Arguments parse(List<String> args) {
            List<String> rest = new ArrayList<>(args);
            if (!rest.isEmpty() && rest.get(0).equals("jupyter")) {
                rest.remove(0);
            }
            if (rest.isEmpty()) {
                throw new IllegalArgumentException("install or kernel?");
            }
            String command = rest.remove(0);
            if (command.equals("-h") || command.equals("--help") || command.equals("help")) {
                return new Arguments(false, true, Optional.empty(), "codeagent", Optional.empty(), Map.of(), null);
            }
            boolean install = command.equals("install");
            if (!install && !command.equals("kernel")) {
                throw new IllegalArgumentException("unknown command '" + command + "': install or kernel");
            }
            Optional<Path> prefix = Optional.empty();
            boolean user = false;
            String name = "codeagent";
            Optional<Path> config = Optional.empty();
            Map<String, String> overrides = new LinkedHashMap<>();
            Path connection = null;
            for (int i = 0; i < rest.size(); i++) {
                String a = rest.get(i);
                String flag = a;
                String value = null;
                int eq = a.indexOf('=');
                if (a.startsWith("--") && eq > 0 && !a.startsWith("--set")) {
                    flag = a.substring(0, eq);
                    value = a.substring(eq + 1);
                }
                switch (flag) {
                    case "-h":
                    case "--help":
                        return new Arguments(install, true, prefix, name, config, overrides, connection);
                    case "--user":
                        user = true;
                        break;
                    case "--prefix":
                        prefix = Optional.of(Path.of(value != null ? value : next(rest, ++i, a)).toAbsolutePath());
                        break;
                    case "--name":
                        name = value != null ? value : next(rest, ++i, a);
                        break;
                    case "--config":
                        config = Optional.of(Path.of(value != null ? value : next(rest, ++i, a)).toAbsolutePath());
                        break;
                    case "--sandbox":
                        overrides.put("sandbox.kind", value != null ? value : next(rest, ++i, a));
                        break;
                    case "--set":
                        String kv = next(rest, ++i, a);
                        int at = kv.indexOf('=');
                        if (at <= 0) {
                            throw new IllegalArgumentException("--set: expected KEY=VALUE, got '" + kv + "'");
                        }
                        overrides.put(kv.substring(0, at), kv.substring(at + 1));
                        break;
                    default:
                        if (a.startsWith("-") || install || connection != null) {
                            throw new IllegalArgumentException("unknown argument '" + a + "'");
                        }
                        connection = Path.of(a);
                }
            }
            if (install && user && prefix.isPresent()) {
                throw new IllegalArgumentException("--user and --prefix exclude each other");
            }
            if (!install && connection == null) {
                throw new IllegalArgumentException("kernel needs the connection file Jupyter gives it");
            }
            if (!install && (user || prefix.isPresent())) {
                throw new IllegalArgumentException("--user and --prefix are install's");
            }
            return new Arguments(install, false, prefix, name, config, java.util.Collections.unmodifiableMap(overrides), connection);
        }

        private static String next(List<String> args, int i, String flag) {
            if (i >= args.size()) {
                throw new IllegalArgumentException(flag + " needs a value");
            }
            return args.get(i);
        }
    }
}
