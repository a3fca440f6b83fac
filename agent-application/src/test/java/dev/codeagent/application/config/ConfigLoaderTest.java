package dev.codeagent.application.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigLoaderTest {

    private final ConfigLoader loader = new ConfigLoader();

    @TempDir
    Path dir;

    @Test
    void emptyConfigIsTheDefaults() {
        assertThat(loader.parse("")).isEqualTo(CodeAgentConfig.defaults());
    }

    @Test
    void fileThenEnvironmentThenOverridesEachWin() throws Exception {
        Path file = dir.resolve("c.yaml");
        Files.writeString(file, "sandbox:\n  kind: docker\n  docker:\n    poolSize: 5\nlimits:\n  timeout: 3s\n  memory: 128m\n");
        CodeAgentConfig c = loader.load(Optional.of(file),
                Map.of("CODEAGENT_SANDBOX_DOCKER_POOL_SIZE", "7", "CODEAGENT_LLM_MODEL", "llama3", "HOME", "/x"),
                Map.of("limits.timeout", "500ms"));
        assertThat(c.sandbox().kind()).isEqualTo("docker");
        assertThat(c.sandbox().docker().poolSize()).isEqualTo(7);
        assertThat(c.generator().openai().model()).isEqualTo("llama3");
        assertThat(c.limits().timeout()).isEqualTo(Duration.ofMillis(500));
        assertThat(c.limits().memory().bytes()).isEqualTo(128L << 20);
    }

    @Test
    void jsonFilesWorkToo() throws Exception {
        Path file = dir.resolve("c.json");
        Files.writeString(file, "{\"store\": {\"kind\": \"memory\"}, \"solve\": {\"maxAttempts\": 5}}");
        CodeAgentConfig c = loader.load(Optional.of(file), Map.of(), Map.of());
        assertThat(c.store().kind()).isEqualTo("memory");
        assertThat(c.solve().maxAttempts()).isEqualTo(5);
    }

    @Test
    void unknownKeyIsNamedWithTheKnownOnes() {
        assertThatThrownBy(() -> loader.parse("sandbox:\n  dockr: {}\n"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("'sandbox.dockr'")
                .hasMessageContaining("docker");
        assertThatThrownBy(() -> loader.load(Optional.empty(), Map.of(), Map.of("limits.timout", "1s")))
                .hasMessageContaining("'limits.timout'").hasMessageContaining("limits.timeout");
    }

    @Test
    void badValuesAreNamedWithWhatIsAllowed() {
        assertThatThrownBy(() -> loader.parse("sandbox: {isolation: paranoid}"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("sandbox.isolation")
                .hasMessageContaining("strict, best-effort");
        assertThatThrownBy(() -> loader.parse("limits: {timeout: 5x}"))
                .hasMessageContaining("limits.timeout").hasMessageContaining("'5x' is not a duration");
        assertThatThrownBy(() -> loader.parse("sandbox: {docker: {poolSize: lots}}"))
                .hasMessageContaining("sandbox.docker.poolSize");
        assertThatThrownBy(() -> loader.parse("sandbox: {docker: {poolSize: -1}}"))
                .hasMessageContaining("poolSize must not be negative");
        assertThatThrownBy(() -> loader.parse("limits: [1, 2]"))
                .hasMessageContaining("limits");
    }

    @Test
    void aNamedFileThatIsMissingOrBrokenIsAnError() throws Exception {
        assertThatThrownBy(() -> loader.load(Optional.of(dir.resolve("nope.yaml")), Map.of(), Map.of()))
                .hasMessageContaining("does not exist");
        Path broken = dir.resolve("b.yaml");
        Files.writeString(broken, "sandbox: [\n");
        assertThatThrownBy(() -> loader.load(Optional.of(broken), Map.of(), Map.of()))
                .isInstanceOf(ConfigException.class).hasMessageContaining("not valid YAML");
    }

    @Test
    void configFileCanBeNamedByEnvironment() throws Exception {
        Path file = dir.resolve("env.yaml");
        Files.writeString(file, "store: {kind: memory}");
        CodeAgentConfig c = loader.load(Optional.empty(), Map.of(ConfigLoader.CONFIG_FILE_ENV, file.toString()), Map.of());
        assertThat(c.store().kind()).isEqualTo("memory");
    }

    @Test
    void listsAreCommaSeparatedInOverrides() {
        CodeAgentConfig c = loader.load(Optional.empty(), Map.of(), Map.of("policy.forbiddenModules", "socket, ctypes"));
        assertThat(c.policy().forbiddenModules()).containsExactly("socket", "ctypes");
    }

    @Test
    void describeMasksTheApiKey() {
        CodeAgentConfig c = loader.load(Optional.empty(), Map.of("CODEAGENT_LLM_API_KEY", "sk-secret"), Map.of());
        assertThat(c.generator().openai().apiKey()).isEqualTo("sk-secret");
        assertThat(loader.describe(c).toString()).doesNotContain("sk-secret").contains("***");
        assertThat(c.generator().openai().toString()).doesNotContain("sk-secret");
    }

    @Test
    void everyKeyHasAnEnvironmentName() {
        assertThat(ConfigLoader.envName("sandbox.docker.poolSize")).isEqualTo("CODEAGENT_SANDBOX_DOCKER_POOL_SIZE");
        assertThat(loader.keys()).contains("sandbox.kind", "generator.openai.baseUrl", "http.port");
    }
}
