package dev.codeagent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HelpConfigVersionTest {

    @TempDir
    Path dir;

    private CliRunner cli;

    @BeforeEach
    void setUp() {
        cli = new CliRunner(dir);
    }

    @Test
    void everyCommandHasHelpThatExitsZero() {
        for (String[] args : new String[][] {{"--help"}, {"exec", "--help"}, {"solve", "--help"}, {"runs", "--help"},
                {"runs", "show", "--help"}, {"config", "--help"}, {"version", "--help"}}) {
            CliRunner.Result r = cli.run(args);
            assertThat(r.status()).as(String.join(" ", args)).isZero();
            assertThat(r.out()).as(String.join(" ", args)).startsWith("Usage: codeagent");
        }
        assertThat(cli.run("exec", "--help").out()).contains("124", "125", "137", "153", "--timeout", "--json");
    }

    @Test
    void theCommandListNamesServeAndJupyterAndCutsNoDescription() {
        String help = cli.run("--help").out();
        assertThat(help).containsPattern("(?m)^  serve +Serve the HTTP API").containsPattern("(?m)^  jupyter +Install or run");
        // the list shows each command's first description line: a whole sentence, never "…, solve it with"
        assertThat(help).containsPattern("(?m)^  worker +Work runs and executions queued in a shared store \\(store.kind:\\R? *postgres\\) until stopped\\.");
        // the footer breaks between phrases, not inside "signal N"
        assertThat(help).contains("or 128+N when signal N killed it.");
        assertThat(cli.run("exec", "--help").out()).as("the launcher's commands belong to the top-level list only")
                .doesNotContain("Serve the HTTP API");
        assertThat(cli.run("session", "--help").out()).contains("lines starting with '# %%'");
    }

    @Test
    void configShowsTheZygoteModeInForceAndKeysShowDefaultsAndWhatTheySet() throws IOException {
        JsonNode config = new ObjectMapper().readTree(cli.run("config").out());
        assertThat(config.get("sandbox").get("process").get("zygote").asText()).isEqualTo("batch");
        String keys = cli.run("config", "--keys").out();
        assertThat(keys).containsPattern("limits\\.timeout +10s +CODEAGENT_LIMITS_TIMEOUT\\R +Wall-clock time a program may run")
                .containsPattern("limits\\.maxWallTime +1h ");
    }

    @Test
    void commonOptionsWorkBeforeAndAfterTheCommand() throws IOException {
        JsonNode before = new ObjectMapper().readTree(cli.run("--sandbox", "docker", "config").out());
        JsonNode after = new ObjectMapper().readTree(cli.run("config", "--sandbox", "docker").out());
        assertThat(before.get("sandbox").get("kind").asText()).isEqualTo("docker");
        assertThat(after.get("sandbox").get("kind").asText()).isEqualTo("docker");
    }

    @Test
    void configMasksTheApiKeyAndShowsEveryLayer() throws IOException {
        cli.env("CODEAGENT_LLM_API_KEY", "sk-secret-123").env("CODEAGENT_LLM_MODEL", "from-env");
        CliRunner.Result r = cli.run("config", "--set", "limits.timeout=7s");
        assertThat(r.status()).as(r.toString()).isZero();
        assertThat(r.out()).doesNotContain("sk-secret-123");
        JsonNode config = new ObjectMapper().readTree(r.out());
        assertThat(config.get("generator").get("openai").get("apiKey").asText()).isEqualTo("***");
        assertThat(config.get("generator").get("openai").get("model").asText()).isEqualTo("from-env");
        assertThat(config.get("limits").get("timeout").asText()).isEqualTo("7s");
        assertThat(cli.run("config", "--keys").out()).contains("sandbox.kind", "CODEAGENT_SANDBOX_KIND");
    }

    @Test
    void printsTheVersion() {
        CliRunner.Result r = cli.run("version");
        assertThat(r.status()).isZero();
        assertThat(r.out()).startsWith("codeagent 0.").contains("Java 17");
        assertThat(cli.run("--version").out()).isEqualTo(r.out());
    }
}
