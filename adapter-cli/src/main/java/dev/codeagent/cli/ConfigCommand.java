package dev.codeagent.cli;

import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.config.ConfigLoader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Properties;
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

    @Option(names = "--keys", description = "List every config key with its default, its environment variable and what it sets, instead.")
    boolean keys;

    /** One line per key (adapter-cli's config-keys.properties): the keys themselves carry no words. */
    static Properties descriptions() {
        Properties p = new Properties();
        try (InputStream in = ConfigCommand.class.getResourceAsStream("config-keys.properties")) {
            if (in != null) {
                p.load(new InputStreamReader(in, StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return p;
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        ConfigLoader loader = new ConfigLoader();
        if (keys) {
            Map<String, String> defaults = loader.defaultsByKey();
            Properties descriptions = descriptions();
            java.util.Set<String> secrets = loader.secretKeys();
            out.printf("%-36s %-24s %s%n", "KEY", "DEFAULT", "ENVIRONMENT VARIABLE");
            for (String key : loader.keys()) {
                String value = defaults.getOrDefault(key, "");
                value = secrets.contains(key) && !value.isEmpty() ? "***" : value.isEmpty() ? "(unset)" : value;
                out.printf("%-36s %-24s %s%n", key, value, ConfigLoader.envName(key));
                out.printf("    %s%n", descriptions.getProperty(key, "(no description)"));
            }
        } else {
            CodeAgentConfig config = cli.config(Map.of());
            out.println(Json.write(loader.describe(config)));
        }
        out.flush();
        return ExitStatus.OK;
    }
}
