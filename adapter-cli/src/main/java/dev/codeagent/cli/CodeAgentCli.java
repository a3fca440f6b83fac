package dev.codeagent.cli;

import dev.codeagent.application.CodeAgent;
import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.config.ConfigException;
import dev.codeagent.application.config.ConfigLoader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/**
 * The {@code codeagent} command. Its options ({@code --config}, {@code --sandbox}, {@code --set},
 * {@code --verbose}) may be given before or after the subcommand; subcommands compose the
 * application only through {@link #config} and {@link #agent}, the shared composition path.
 */
@Command(name = "codeagent",
        description = {"Runs code safely in a sandbox, and lets a model write, run and fix code until it works.",
            "Also: 'codeagent serve' (the HTTP API), 'codeagent jupyter' (the notebook kernel), 'codeagent mcp' (the MCP server)."},
        versionProvider = VersionCommand.Provider.class,
        usageHelpAutoWidth = true,
        subcommands = {
            ExecCommand.class,
            SolveCommand.class,
            RunsCommand.class,
            ConfigCommand.class,
            EvalCommand.class,
            JudgeCommand.class,
            SessionCommand.class,
            WorkerCommand.class,
            VersionCommand.class,
        },
        footerHeading = "%nExit status:%n",
        footer = {
            "  0    success (exec: the program exited 0; solve: solved)",
            "  1    solve: not solved; runs show: no such run; an unexpected error",
            "  2    bad usage or input: unknown option, bad value, missing file, bad config",
            "  124  exec: time limit",
            "  125  the sandbox failed or is unavailable",
            "  126  exec: refused by the code policy",
            "  130  interrupted (Ctrl-C)",
            "  137  exec: memory limit",
            "  153  exec: output limit (or a file past the file-size limit)",
            "  exec otherwise mirrors the program: its exit code,",
            "  or 128+N when signal N killed it.",
            "",
            "Config: defaults < file (--config, $CODEAGENT_CONFIG, ~/.codeagent/config.yaml)",
            "  < CODEAGENT_* environment variables < flags ('codeagent config' shows it)."})
public final class CodeAgentCli implements Runnable {

    /** A command's flags that become config keys, so that a config error they cause can be laid at their door. */
    private static final java.util.Set<String> CONFIG_FLAGS = java.util.Set.of("--timeout", "--memory", "--generator", "--replay");

    @Spec
    CommandSpec spec;

    @Option(names = {"-h", "--help"}, usageHelp = true, scope = ScopeType.INHERIT, description = "Show this help and exit.")
    boolean help;

    @Option(names = {"-V", "--version"}, versionHelp = true, description = "Print the version and exit.")
    boolean version;

    @Option(names = "--config", paramLabel = "FILE", scope = ScopeType.INHERIT,
            description = "Config file (YAML or JSON); default $CODEAGENT_CONFIG, else ~/.codeagent/config.yaml if present.")
    Path configFile;

    @Option(names = "--sandbox", paramLabel = "KIND", scope = ScopeType.INHERIT,
            description = "Sandbox tier: process or docker (config sandbox.kind).")
    String sandbox;

    @Option(names = "--set", paramLabel = "KEY=VALUE", scope = ScopeType.INHERIT,
            description = "Set any config key by its dotted path, e.g. --set limits.processes=16 (see 'codeagent config --keys').")
    Map<String, String> sets = new LinkedHashMap<>();

    @Option(names = {"-v", "--verbose"}, scope = ScopeType.INHERIT, description = "Log debug detail to stderr.")
    boolean verbose;

    private final CliContext context;

    public CodeAgentCli(CliContext context) {
        this.context = Objects.requireNonNull(context, "context");
    }

    /** Standard input, environment and terminal of this invocation. */
    public CliContext context() {
        return context;
    }

    /**
     * The effective config: defaults, the config file, {@code CODEAGENT_*} variables, {@code --set},
     * {@code --sandbox}, then the command's own flags, each later one winning.
     *
     * @param commandOverrides the command's flags as dotted config keys
     * @throws dev.codeagent.application.config.ConfigException naming what is wrong
     */
    public CodeAgentConfig config(Map<String, String> commandOverrides) {
        return config(commandOverrides, false);
    }

    /**
     * The effective config for a command that runs one program: in a one-shot process the docker pool
     * is off (the process would start warm containers only to remove them again), unless {@code --set}
     * asks for one.
     */
    CodeAgentConfig configForOneRun(Map<String, String> commandOverrides) {
        return config(commandOverrides, context.oneShot());
    }

    /**
     * The effective config for a command that serves others ({@code worker}): strict isolation by default
     * ({@link ConfigLoader#SERVICE_DEFAULTS}), which the config file, {@code CODEAGENT_*} and {@code --set} still override.
     */
    CodeAgentConfig configForService(Map<String, String> commandOverrides) {
        return config(commandOverrides, false, ConfigLoader.SERVICE_DEFAULTS);
    }

    private CodeAgentConfig config(Map<String, String> commandOverrides, boolean noPool) {
        return config(commandOverrides, noPool, Map.of());
    }

    private CodeAgentConfig config(Map<String, String> commandOverrides, boolean noPool, Map<String, String> doorDefaults) {
        Map<String, String> overrides = new LinkedHashMap<>();
        if (noPool) {
            overrides.put("sandbox.docker.poolSize", "0");
        }
        overrides.putAll(sets);
        if (sandbox != null) {
            overrides.put("sandbox.kind", sandbox);
        }
        overrides.putAll(commandOverrides);
        Optional<Path> file = Optional.ofNullable(configFile);
        try {
            return load(file, overrides, doorDefaults);
        } catch (ConfigException e) {
            throw blame(e, file, noPool, commandOverrides, doorDefaults);
        }
    }

    private CodeAgentConfig load(Optional<Path> file, Map<String, String> overrides, Map<String, String> doorDefaults) {
        // the caller's directory, not this process's: the background process runs in / for callers everywhere
        return ConfigLoader.shared().load(file, context.env(), overrides, context.cwd(), doorDefaults);
    }

    /**
     * The error in the words of what the user typed: the loader sees one merged tree and names the config key
     * (and "defaults" as its origin), but the value may have come from {@code --set} or a command's flag. Loads
     * the layers again one by one (only on this error path) and names the first that breaks it.
     */
    private RuntimeException blame(ConfigException e, Optional<Path> file, boolean noPool, Map<String, String> commandOverrides,
            Map<String, String> doorDefaults) {
        Map<String, String> base = new LinkedHashMap<>();
        if (noPool) {
            base.put("sandbox.docker.poolSize", "0");
        }
        if (fails(file, base, doorDefaults)) {
            return e; // the file or the environment: the loader names them itself
        }
        Map<String, String> withSets = new LinkedHashMap<>(base);
        withSets.putAll(sets);
        if (!sets.isEmpty() && fails(file, withSets, doorDefaults)) {
            String typed = sets.entrySet().stream().map(s -> "--set " + s.getKey() + "=" + s.getValue())
                    .collect(java.util.stream.Collectors.joining(" "));
            return new ConfigException(typed + ": " + withoutOrigin(e.getMessage()), e);
        }
        if (sandbox != null) {
            withSets.put("sandbox.kind", sandbox);
            if (fails(file, withSets, doorDefaults)) {
                return new ConfigException("--sandbox " + sandbox + ": " + withoutOrigin(e.getMessage()), e);
            }
        }
        CodeAgentConfig before = load(file, withSets, doorDefaults);
        CommandLine.ParseResult parsed = spec.commandLine().getParseResult();
        while (parsed != null && parsed.subcommand() != null) {
            parsed = parsed.subcommand();
        }
        if (parsed != null) {
            for (CommandLine.Model.OptionSpec o : parsed.matchedOptions()) {
                if (o.longestName().equals("--timeout") && o.getValue() instanceof java.time.Duration) {
                    java.time.Duration t = o.getValue();
                    java.time.Duration ceiling = before.limits().maxWallTime();
                    if (t.compareTo(ceiling) > 0) {
                        return new UsageException("--timeout " + dev.codeagent.application.config.Units.formatDuration(t)
                                + ": longer than the ceiling " + dev.codeagent.application.config.Units.formatDuration(ceiling)
                                + " (limits.maxWallTime; raise it in config or with --set limits.maxWallTime=...)");
                    }
                }
            }
            String flags = parsed.matchedOptions().stream()
                    .filter(o -> CONFIG_FLAGS.contains(o.longestName()))
                    .map(o -> o.longestName() + " " + String.join(",", o.originalStringValues()))
                    .collect(java.util.stream.Collectors.joining(", "));
            if (!flags.isEmpty()) {
                return new ConfigException(flags + ": " + withoutOrigin(e.getMessage()), e);
            }
        }
        return e;
    }

    private boolean fails(Optional<Path> file, Map<String, String> overrides, Map<String, String> doorDefaults) {
        try {
            load(file, overrides, doorDefaults);
            return false;
        } catch (ConfigException e) {
            return true;
        }
    }

    private static String withoutOrigin(String message) {
        // the loader names the file (or "defaults") as the origin of the merged tree: not where this value came from
        return message.replaceFirst("^invalid config in .*?: ", "");
    }

    /**
     * Whether work goes to the shared store's workers: {@code sandbox.kind: queue}, which the {@code --queue} flags of
     * {@code solve}, {@code exec} and {@code eval} are shorthands for. A run goes to the run queue whole; a single
     * execution through the composition's queue sandbox.
     */
    static boolean onTheWorkers(CodeAgentConfig config) {
        return dev.codeagent.application.work.QueuedSandbox.TIER.equals(config.sandbox().kind());
    }

    /** What the user typed to send work to the workers, for a message about it. */
    static String queueSource(boolean flag) {
        return flag ? "--queue" : "sandbox.kind: queue";
    }

    /** The override a {@code --queue} flag stands for. */
    static void queueFlag(boolean flag, Map<String, String> overrides) {
        if (flag) {
            overrides.put("sandbox.kind", dev.codeagent.application.work.QueuedSandbox.TIER);
        }
    }

    /**
     * Composes the application from the config; the sandbox is built now, the generator and the run
     * log when first asked for. Close it when done.
     */
    public CodeAgent agent(CodeAgentConfig config) {
        return context.agents().apply(config);
    }

    @Override
    public void run() {
        // no subcommand: the usage is the answer, but it was not a successful command
        spec.commandLine().usage(spec.commandLine().getErr());
        throw new UsageException("a command is needed: exec, solve, runs, eval, config or version");
    }

    /** The command line with its error handling and output streams, ready to {@code execute(args)}. */
    public static CommandLine commandLine(CliContext context, PrintWriter out, PrintWriter err) {
        CodeAgentCli cli = new CodeAgentCli(context);
        CommandLine cmd = new CommandLine(cli);
        Failures failures = new Failures();
        cmd.setOut(out);
        cmd.setErr(err);
        cmd.setExecutionExceptionHandler(failures);
        cmd.setParameterExceptionHandler(failures);
        cmd.setCaseInsensitiveEnumValuesAllowed(true);
        listLauncherCommands(cmd);
        if (!context.cwd().equals(Path.of("").toAbsolutePath())) {
            // a caller in another directory (the background process serves them all): file options
            // mean what they would in the caller's own process
            cmd.registerConverter(Path.class, name -> context.cwd().resolve(name));
        }
        cmd.setExecutionStrategy(parseResult -> {
            if (cli.verbose) {
                Logging.verbose();
            }
            return new CommandLine.RunLast().execute(parseResult);
        });
        return cmd;
    }

    /**
     * {@code serve}, {@code jupyter} and {@code mcp} are started by the launcher from their own entry points, not by this command
     * line; the command list names them all the same, since a user looks for them there.
     */
    private static void listLauncherCommands(CommandLine cmd) {
        Map<String, CommandLine.IHelpSectionRenderer> sections = cmd.getHelpSectionMap();
        CommandLine.IHelpSectionRenderer list = sections.get(CommandLine.Model.UsageMessageSpec.SECTION_KEY_COMMAND_LIST);
        int width = cmd.getSubcommands().keySet().stream().mapToInt(String::length).max().orElse(7);
        // the map reaches the subcommands too: only the top-level list gets these lines
        sections.put(CommandLine.Model.UsageMessageSpec.SECTION_KEY_COMMAND_LIST, help -> help.commandSpec().parent() != null
                ? list.render(help) : list.render(help)
                + String.format("  %-" + width + "s  %s%n", "serve", "Serve the HTTP API (docs/http-api.md); 'codeagent serve --help'.")
                + String.format("  %-" + width + "s  %s%n", "jupyter", "Install or run the Jupyter kernel (docs/jupyter.md); 'codeagent jupyter --help'.")
                + String.format("  %-" + width + "s  %s%n", "mcp", "Serve the tools to an MCP client over stdio (docs/mcp.md); 'codeagent mcp --help'."));
        cmd.setHelpSectionMap(sections);
    }

    public static void main(String[] args) {
        PrintWriter out = new PrintWriter(new OutputStreamWriter(new FileOutputStream(FileDescriptor.out), StandardCharsets.UTF_8));
        PrintWriter err = new PrintWriter(new OutputStreamWriter(new FileOutputStream(FileDescriptor.err), StandardCharsets.UTF_8));
        // Ctrl-C / SIGTERM: interrupt the command so that it kills the program and records the run as
        // CANCELLED, and give it a moment to do so before the JVM goes
        Thread main = Thread.currentThread();
        CountDownLatch finished = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (finished.getCount() == 0) {
                return;
            }
            main.interrupt();
            try {
                finished.await(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "codeagent-shutdown"));
        int status = commandLine(CliContext.system(), out, err).execute(args);
        out.flush();
        err.flush();
        finished.countDown();
        System.exit(status);
    }
}
