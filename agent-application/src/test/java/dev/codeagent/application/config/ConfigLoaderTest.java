package dev.codeagent.application.config;

import dev.codeagent.application.spi.IsolationMode;

import dev.codeagent.domain.execution.ResourceLimits;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codeagent.application.spi.ConfigSection;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigLoaderTest {

    /** Shaped like the docker tier's section, which lives in that adapter's module. */
    public record DockerLike(String image, int poolSize) {
        public DockerLike {
            if (poolSize < 0) {
                throw new IllegalArgumentException("sandbox.docker.poolSize must not be negative, was " + poolSize);
            }
        }
    }

    /** Shaped like the OpenAI generator's section. */
    public record OpenAiLike(String baseUrl, String model, String apiKey) {
        @Override
        public String toString() {
            return "OpenAiLike[baseUrl=" + baseUrl + ", model=" + model + ", apiKey=" + (apiKey == null ? "none" : "***") + "]";
        }
    }

    /** Shaped like the HTTP server's section. */
    public record HttpLike(String host, int port) {
    }

    static final ConfigSection<DockerLike> DOCKER = new ConfigSection<>("sandbox.docker", DockerLike.class,
            new DockerLike("codeagent-sandbox:latest", 2));
    static final ConfigSection<OpenAiLike> OPENAI = new ConfigSection<>("generator.openai", OpenAiLike.class,
            new OpenAiLike("http://localhost:11434/v1", "qwen2.5-coder:7b", null))
            .withEnvAlias("CODEAGENT_LLM_MODEL", "model").withEnvAlias("CODEAGENT_LLM_API_KEY", "apiKey").withSecret("apiKey");
    static final ConfigSection<HttpLike> HTTP = new ConfigSection<>("http", HttpLike.class, new HttpLike("127.0.0.1", 8080));

    private final ConfigLoader loader = new ConfigLoader(List.of(DOCKER, OPENAI, HTTP));

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
        assertThat(c.section(DOCKER).poolSize()).isEqualTo(7);
        assertThat(c.section(OPENAI).model()).isEqualTo("llama3");
        assertThat(c.limits().timeout()).isEqualTo(Duration.ofMillis(500));
        assertThat(c.limits().memory().bytes()).isEqualTo(128L << 20);
    }

    @Test
    void aServiceDoorIsStrictByDefaultAndEveryExplicitSourceStillWins() throws Exception {
        assertThat(loader.load(Optional.empty(), Map.of(), Map.of()).sandbox().isolation())
                .as("the command line's default").isEqualTo(IsolationMode.BEST_EFFORT);
        assertThat(loader.load(Optional.empty(), Map.of(), Map.of(), ConfigLoader.SERVICE_DEFAULTS).sandbox().isolation())
                .isEqualTo(IsolationMode.STRICT);
        Path file = dir.resolve("s.yaml");
        Files.writeString(file, "sandbox:\n  isolation: best-effort\n");
        assertThat(loader.load(Optional.of(file), Map.of(), Map.of(), ConfigLoader.SERVICE_DEFAULTS).sandbox().isolation())
                .as("a config file").isEqualTo(IsolationMode.BEST_EFFORT);
        assertThat(loader.load(Optional.empty(), Map.of("CODEAGENT_SANDBOX_ISOLATION", "best-effort"), Map.of(),
                ConfigLoader.SERVICE_DEFAULTS).sandbox().isolation()).as("the environment").isEqualTo(IsolationMode.BEST_EFFORT);
        assertThat(loader.load(Optional.empty(), Map.of(), Map.of("sandbox.isolation", "best-effort"),
                ConfigLoader.SERVICE_DEFAULTS).sandbox().isolation()).as("--set").isEqualTo(IsolationMode.BEST_EFFORT);
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
        assertThat(c.section(OPENAI).apiKey()).isEqualTo("sk-secret");
        assertThat(loader.describe(c).toString()).doesNotContain("sk-secret").contains("***");
        assertThat(c.section(OPENAI).toString()).doesNotContain("sk-secret");
    }

    @Test
    void everyKeyHasAnEnvironmentName() {
        assertThat(ConfigLoader.envName("sandbox.docker.poolSize")).isEqualTo("CODEAGENT_SANDBOX_DOCKER_POOL_SIZE");
        assertThat(loader.keys()).contains("sandbox.kind", "generator.openai.baseUrl", "http.port");
    }

    @Test
    void everyAdapterSectionIsInTheKeysWithItsEnvironmentName() {
        assertThat(loader.keys()).contains("sandbox.docker.image", "sandbox.docker.poolSize", "generator.openai.model",
                "generator.openai.apiKey", "http.host", "http.port", "limits.timeout", "store.kind");
        assertThat(loader.keys()).doesNotContain("sandbox.docker", "http");
        CodeAgentConfig c = loader.load(Optional.empty(), Map.of("CODEAGENT_HTTP_PORT", "9000"), Map.of("sandbox.docker.image", "mine:1"));
        assertThat(c.section(HTTP).port()).isEqualTo(9000);
        assertThat(c.section(DOCKER).image()).isEqualTo("mine:1");
        assertThat(c.section(DOCKER).poolSize()).isEqualTo(2);
        assertThat(new ConfigLoader(List.of()).keys()).noneMatch(k -> k.startsWith("http") || k.startsWith("sandbox.docker"));
    }

    @Test
    void anUnknownKeyInsideAnAdapterSectionIsNamed() {
        assertThatThrownBy(() -> loader.parse("sandbox:\n  docker:\n    poolSzie: 3\n"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("'sandbox.docker.poolSzie'")
                .hasMessageContaining("poolSize");
        assertThatThrownBy(() -> loader.load(Optional.empty(), Map.of(), Map.of("http.prot", "1")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("'http.prot'").hasMessageContaining("http.port");
    }

    @Test
    void anInvalidAdapterValueFailsWithOneLineNamingTheKey() {
        assertThatThrownBy(() -> loader.load(Optional.empty(), Map.of("CODEAGENT_SANDBOX_DOCKER_POOL_SIZE", "-1"), Map.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("sandbox.docker.poolSize must not be negative")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
        assertThatThrownBy(() -> loader.parse("http: {port: many}"))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("http.port: ")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }

    /** An unset CPU limit follows the wall limit wherever that is set; a set one is never raised by it (issue 33). */
    @Test
    void anUnsetCpuLimitFollowsTheTimeoutAndASetOneIsNotRaisedByIt() throws Exception {
        assertThat(loader.parse("{}").limits().cpuTime()).as("unset by default").isNull();
        assertThat(loader.parse("{}").limits().toResourceLimits()).isEqualTo(ResourceLimits.defaults());
        assertThat(loader.load(Optional.empty(), Map.of(), Map.of("limits.timeout", "30s")).limits().toResourceLimits().cpuTime())
                .as("a longer timeout is not cut short by a CPU limit nobody set").isEqualTo(Duration.ofSeconds(30));
        // set in the file, the environment or an override, the CPU limit stays whatever raises the timeout later
        Path file = Files.writeString(dir.resolve("cpu.yaml"), "limits:\n  cpuTime: 1s\n");
        assertThat(loader.load(Optional.of(file), Map.of(), Map.of("limits.timeout", "8s")).limits().toResourceLimits().cpuTime())
                .isEqualTo(Duration.ofSeconds(1));
        assertThat(loader.load(Optional.empty(), Map.of("CODEAGENT_LIMITS_CPU_TIME", "1s"), Map.of("limits.timeout", "8s"))
                .limits().toResourceLimits().cpuTime()).isEqualTo(Duration.ofSeconds(1));
        ResourceLimits both = loader.load(Optional.empty(), Map.of(), Map.of("limits.cpuTime", "1s", "limits.timeout", "8s"))
                .limits().toResourceLimits();
        assertThat(both.wallTime()).isEqualTo(Duration.ofSeconds(8));
        assertThat(both.cpuTime()).isEqualTo(Duration.ofSeconds(1));
        // an empty override unsets it again: it follows the timeout
        assertThat(loader.load(Optional.of(file), Map.of(), Map.of("limits.cpuTime", "", "limits.timeout", "8s"))
                .limits().toResourceLimits().cpuTime()).isEqualTo(Duration.ofSeconds(8));
    }

    @Test
    void limitsOutsideTheDomainsRangesFailAtLoadNamingTheKey() {
        assertThatThrownBy(() -> loader.parse("limits: {memory: 1m}"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("memoryBytes must be at least 16 MiB")
                .hasMessageContaining("limits.memory");
        assertThatThrownBy(() -> loader.load(Optional.empty(), Map.of(), Map.of("limits.timeout", "2h")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("limits.timeout");
        assertThatThrownBy(() -> loader.parse("limits: {compileMemory: 1m}"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("memoryBytes must be at least 16 MiB")
                .hasMessageContaining("limits.compileMemory");
    }

    @Test
    void compileLimitsHaveTheirOwnKeysAndDefaults() {
        assertThat(loader.parse("{}").limits().compileLimits()).isEqualTo(ResourceLimits.compileDefaults());
        ResourceLimits set = loader.parse("limits: {compileTimeout: 5s, compileMemory: 512m}").limits().compileLimits();
        assertThat(set.wallTime()).isEqualTo(java.time.Duration.ofSeconds(5));
        assertThat(set.cpuTime()).isEqualTo(java.time.Duration.ofSeconds(5));
        assertThat(set.memoryBytes()).isEqualTo(512 * ResourceLimits.MIB);
    }

    @Test
    void anAdapterSectionAtItsDefaultsIsTheSameConfigAsNone() {
        CodeAgentConfig c = loader.parse("sandbox: {docker: {poolSize: 2}}");
        assertThat(c).isEqualTo(CodeAgentConfig.defaults());
        assertThat(c.section(DOCKER)).isEqualTo(DOCKER.defaults());
        assertThat(c.withSection(DOCKER, new DockerLike("x", 0)).section(DOCKER)).isEqualTo(new DockerLike("x", 0));
        assertThat(loader.describe(c).path("sandbox").path("docker").path("poolSize").asInt()).isEqualTo(2);
    }

    @Test
    void sectionsThatCollideAreAPackagingErrorAtOnce() {
        assertThatThrownBy(() -> new ConfigLoader(List.of(HTTP, new ConfigSection<>("http", HttpLike.class, new HttpLike("h", 1)))))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("http");
        assertThatThrownBy(() -> new ConfigLoader(List.of(new ConfigSection<>("sandbox.kind", HttpLike.class, new HttpLike("h", 1)))))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("sandbox.kind");
    }

    /** Shaped like the SQLite store's and the process tier's sections: keys that name a file and a program. */
    public record FilesLike(String path, String python) {
    }

    /**
     * A background process serving the command line runs in /: a relative path must mean the caller's directory (and,
     * inside a config file, the file's directory), never the loading process's, whichever way it was given.
     */
    @Test
    void relativePathsResolveAgainstTheCallerAndTheConfigFilesDirectory() throws Exception {
        ConfigSection<FilesLike> section = new ConfigSection<>("store.sqlite", FilesLike.class,
                new FilesLike("~/.codeagent/runs.db", null)).withFile("path").withCommand("python");
        ConfigLoader files = new ConfigLoader(List.of(section));
        Path caller = Files.createDirectories(dir.resolve("caller"));
        Path confDir = Files.createDirectories(dir.resolve("conf"));
        Files.writeString(confDir.resolve("store.yaml"), "store:\n  sqlite:\n    path: ./my-runs.db\n    python: bin/py\n");

        FilesLike fromFile = files.load(Optional.of(Path.of("../conf/store.yaml")), Map.of(), Map.of(),
                caller).section(section);
        assertThat(fromFile.path()).isEqualTo(confDir.resolve("my-runs.db").toString());
        assertThat(fromFile.python()).isEqualTo(confDir.resolve("bin/py").toString());

        FilesLike fromEnv = files.load(Optional.empty(), Map.of("CODEAGENT_STORE_SQLITE_PATH", "runs.db",
                "CODEAGENT_STORE_SQLITE_PYTHON", "python3"), Map.of(), caller).section(section);
        assertThat(fromEnv.path()).isEqualTo(caller.resolve("runs.db").toString());
        assertThat(fromEnv.python()).as("a bare program name is looked up on the PATH").isEqualTo("python3");

        FilesLike fromSet = files.load(Optional.empty(), Map.of(), Map.of("store.sqlite.path", "a/../b.db"),
                caller).section(section);
        assertThat(fromSet.path()).isEqualTo(caller.resolve("b.db").toString());

        FilesLike named = files.load(Optional.empty(), Map.of("CODEAGENT_CONFIG", "../conf/store.yaml"),
                Map.of("store.sqlite.python", "/usr/bin/python3"), caller).section(section);
        assertThat(named.path()).as("$CODEAGENT_CONFIG relative to the caller").isEqualTo(confDir.resolve("my-runs.db").toString());
        assertThat(named.python()).isEqualTo("/usr/bin/python3");

        FilesLike home = files.load(Optional.empty(), Map.of(), Map.of(), caller).section(section);
        assertThat(home.path()).as("~ is the adapter's to expand").isEqualTo("~/.codeagent/runs.db");
    }
}
