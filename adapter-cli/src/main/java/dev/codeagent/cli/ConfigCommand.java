package dev.codeagent.cli;

import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.config.ConfigLoader;
import java.io.PrintWriter;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code codeagent config}: the effective configuration, for debugging what file, variables and flags add up to. */
@Command(name = "config",
        description = {"Print the effective configuration as JSON (the API key masked): defaults < file < CODEAGENT_* < flags.",
            "Nothing is started: it only reads and checks the configuration."},
        usageHelpAutoWidth = true)
final class ConfigCommand implements Callable<Integer> {

    @ParentCommand
    CodeAgentCli cli;

    @Spec
    CommandSpec spec;

    @Option(names = "--keys", description = "List every config key with its environment variable instead.")
    boolean keys;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        ConfigLoader loader = new ConfigLoader();
        if (keys) {
            for (String key : loader.keys()) {
                out.printf("%-36s %s%n", key, ConfigLoader.envName(key));
            }
        } else {
            CodeAgentConfig config = cli.config(Map.of());
            out.println(Json.write(loader.describe(config)));
        }
        out.flush();
        return ExitStatus.OK;
    }
}
