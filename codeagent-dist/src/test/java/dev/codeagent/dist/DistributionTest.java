package dev.codeagent.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codeagent.application.CodeAgent;
import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.config.ConfigException;
import dev.codeagent.application.config.ConfigLoader;
import dev.codeagent.application.spi.Adapters;
import dev.codeagent.application.spi.ConfigSection;
import dev.codeagent.cli.CliContext;
import dev.codeagent.cli.CodeAgentCli;
import dev.codeagent.http.HttpConfig;
import dev.codeagent.sandbox.docker.DockerSandboxConfig;
import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** What this distribution contains, as ServiceLoader sees it on the distribution's own class path. */
class DistributionTest {

    private final Adapters adapters = Adapters.discover();
    private final ConfigLoader loader = new ConfigLoader();

    @Test
    void serviceLoaderFindsEveryAdapterByItsKey() {
        try (CodeAgent agent = CodeAgent.create(CodeAgentConfig.defaults())) {
            // "queue" is the application's own: programs run on the workers behind the store's queue
            assertThat(agent.knownKeys("sandbox")).containsExactly("docker", "process", "queue");
            assertThat(agent.knownKeys("generator")).containsExactly("openai", "replay");
            assertThat(agent.knownKeys("store")).containsExactly("memory", "postgres", "sqlite");
        }
        assertThat(adapters.frontDoors()).extracting(f -> f.config().path()).containsExactlyInAnyOrder("http", "jupyter", "mcp");
    }

    @Test
    void everyAdapterSectionIsInTheOneConfig() {
        assertThat(adapters.sections().stream().map(ConfigSection::path).collect(Collectors.toList()))
                .containsExactly("generator.openai", "generator.replay", "http", "jupyter", "mcp", "sandbox.docker", "sandbox.process", "store.postgres", "store.sqlite");
        assertThat(loader.keys()).contains("sandbox.kind", "sandbox.isolation", "limits.timeout", "solve.maxAttempts",
                "sandbox.process.python", "sandbox.process.workRoot", "sandbox.docker.poolSize", "sandbox.docker.image",
                "generator.openai.baseUrl", "generator.openai.apiKey", "generator.replay.file", "store.sqlite.path",
                "http.port", "http.auth.keys", "http.maxMemory", "jupyter.maxMemory", "jupyter.maxTimeout", "mcp.maxMemory",
                "mcp.maxTimeout", "mcp.maxCallsPerSession", "mcp.maxCodeBytes");
    }

    @Test
    void anAdapterKeyHasItsEnvironmentVariableAndFlag() {
        CodeAgentConfig c = loader.load(Optional.empty(), Map.of("CODEAGENT_SANDBOX_DOCKER_POOL_SIZE", "7", "HOME", "/x"),
                Map.of("http.port", "0"));
        assertThat(c.section(DockerSandboxConfig.SECTION).poolSize()).isEqualTo(7);
        assertThat(HttpConfig.from(c).port()).isZero();
    }

    @Test
    void anUnknownKeyInAnAdapterSectionIsNamedWithTheKnownOnes() {
        assertThatThrownBy(() -> loader.parse("sandbox:\n  docker:\n    poolSzie: 3\n"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("'sandbox.docker.poolSzie'")
                .hasMessageContaining("poolSize");
        assertThatThrownBy(() -> loader.load(Optional.empty(), Map.of(), Map.of("sandbox.process.pyhton", "/usr/bin/python3")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("'sandbox.process.pyhton'")
                .hasMessageContaining("sandbox.process.python");
    }

    @Test
    void anInvalidAdapterValueStopsTheStartWithOneLineNamingTheKey() {
        for (Map<String, String> bad : List.of(Map.of("sandbox.docker.cpus", "0"), Map.of("sandbox.docker.poolSize", "-1"),
                Map.of("http.port", "70000"), Map.of("store.sqlite.path", ""), Map.of("limits.memory", "1m"))) {
            String key = bad.keySet().iterator().next();
            assertThatThrownBy(() -> loader.load(Optional.empty(), Map.of(), bad))
                    .as(key)
                    .isInstanceOf(ConfigException.class)
                    .hasMessageContaining(key)
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
        }
    }

    @Test
    void configKeysListsEveryKeyOfEveryAdapter() {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CliContext context = new CliContext(new ByteArrayInputStream(new byte[0]), Map.of("HOME", "/nonexistent"), false);
        int status = CodeAgentCli.commandLine(context, new PrintWriter(out), new PrintWriter(err)).execute("config", "--keys");
        assertThat(status).as(err.toString()).isZero();
        for (String key : loader.keys()) {
            assertThat(out.toString()).contains(key + " ").contains(ConfigLoader.envName(key));
        }
        assertThat(out.toString()).contains("CODEAGENT_SANDBOX_DOCKER_POOL_SIZE", "CODEAGENT_HTTP_PORT", "CODEAGENT_STORE_SQLITE_PATH");
        // every key says what it sets and its default (a new key without a line in config-keys.properties fails here)
        assertThat(out.toString()).doesNotContain("(no description)");
        assertThat(out.toString()).containsPattern("sandbox\\.process\\.zygote +batch +CODEAGENT_SANDBOX_PROCESS_ZYGOTE\\R +Which Python")
                .containsPattern("limits\\.maxWallTime +1h ");
    }
}
